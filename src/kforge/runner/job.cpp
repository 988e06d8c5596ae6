// JSON (de)serialization of runner jobs.
#include "kforge/runner/job.h"

#include <fmt/format.h>
#include <sched.h>

namespace kforge::runner {
namespace {

const char* dist_name(core::Dist d) {
  switch (d) {
    case core::Dist::normal:
      return "normal";
    case core::Dist::uniform:
      return "uniform";
    case core::Dist::randint:
      return "randint";
    case core::Dist::constant:
      return "constant";
    case core::Dist::arange:
      return "arange";
    case core::Dist::custom:
      return "custom";
  }
  return "?";
}

core::Dist dist_from(const std::string& s) {
  if (s == "uniform") return core::Dist::uniform;
  if (s == "randint") return core::Dist::randint;
  if (s == "constant") return core::Dist::constant;
  if (s == "arange") return core::Dist::arange;
  if (s == "custom") return core::Dist::custom;
  return core::Dist::normal;
}

template <typename F>
auto guarded(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Error{fmt::format("bad {} message: {}", what, e.what())};
  }
}

}  // namespace

core::ResolvedTensor TensorInfo::as_resolved() const {
  core::ResolvedTensor t;
  t.name = name;
  t.dtype = dtype;
  t.numel = numel;
  t.bytes = bytes;
  t.init = init;
  t.mutate = mutate;
  t.shape = {numel};
  return t;
}

std::vector<TensorInfo> tensor_infos(const std::vector<core::ResolvedTensor>& tensors) {
  std::vector<TensorInfo> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors)
    out.push_back({t.name, t.dtype, t.numel, t.bytes, t.init, t.mutate});
  return out;
}

std::vector<std::size_t> byte_sizes(const std::vector<TensorInfo>& tensors) {
  std::vector<std::size_t> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) out.push_back(t.bytes);
  return out;
}

nlohmann::json tensors_to_json(const std::vector<TensorInfo>& tensors) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& t : tensors)
    a.push_back({{"name", t.name},
                 {"dtype", core::dtype_name(t.dtype)},
                 {"numel", t.numel},
                 {"bytes", t.bytes},
                 {"dist", dist_name(t.init.dist)},
                 {"a", t.init.a},
                 {"b", t.init.b},
                 {"mutate", t.mutate}});
  return a;
}

Result<std::vector<TensorInfo>> tensors_from_json(const nlohmann::json& j) {
  return guarded("tensor list", [&]() -> Result<std::vector<TensorInfo>> {
    std::vector<TensorInfo> out;
    for (const auto& t : j) {
      TensorInfo info;
      info.name = t.at("name");
      auto dt = core::parse_dtype(t.at("dtype").get<std::string>());
      if (!dt) return Error{"unknown dtype"};
      info.dtype = *dt;
      info.numel = t.at("numel");
      info.bytes = t.at("bytes");
      info.init = {dist_from(t.at("dist")), t.at("a"), t.at("b")};
      info.mutate = t.at("mutate");
      if (info.bytes != static_cast<std::size_t>(info.numel) * core::dtype_size(info.dtype))
        return Error{"byte size mismatch"};
      out.push_back(std::move(info));
    }
    return out;
  });
}

nlohmann::json to_json(const KernelSetup& s) {
  return {{"op", "kernel"},
          {"trusted", s.trusted},
          {"library", s.library},
          {"inputs", tensors_to_json(s.inputs)},
          {"outputs", tensors_to_json(s.outputs)},
          {"input_sets", s.input_sets},
          {"output_sets", s.output_sets},
          {"threads", s.threads},
          {"cpus", s.cpus},
          {"readable", s.readable},
          {"preload", s.preload},
          {"memory_bytes", s.memory_bytes},
          {"cpu_seconds", s.cpu_seconds}};
}

Result<KernelSetup> parse_setup(const nlohmann::json& j) {
  return guarded("setup", [&]() -> Result<KernelSetup> {
    KernelSetup s;
    auto in = tensors_from_json(j.at("inputs"));
    if (!in) return in.error();
    auto out = tensors_from_json(j.at("outputs"));
    if (!out) return out.error();
    s.inputs = std::move(*in);
    s.outputs = std::move(*out);
    s.trusted = j.at("trusted");
    s.library = j.at("library");
    s.input_sets = j.at("input_sets");
    s.output_sets = j.at("output_sets");
    if (s.output_sets < 1 || s.output_sets > 2) return Error{"output_sets out of range"};
    s.threads = j.at("threads");
    s.cpus = j.value("cpus", std::vector<int>{});
    s.readable = j.at("readable").get<std::vector<std::string>>();
    s.preload = j.at("preload").get<std::vector<std::string>>();
    s.memory_bytes = j.at("memory_bytes");
    s.cpu_seconds = j.at("cpu_seconds");
    if (s.input_sets < 1 || s.input_sets > 16) return Error{"input_sets out of range"};
    if (s.threads < 1 || s.threads > 1024) return Error{"threads out of range"};
    for (int c : s.cpus)
      if (c < 0 || c >= CPU_SETSIZE) return Error{"cpus out of range"};
    return s;
  });
}

nlohmann::json reference_job(const std::string& library, const std::vector<TensorInfo>& inputs,
                             const std::vector<TensorInfo>& outputs, int threads) {
  return {{"op", "reference"},
          {"library", library},
          {"inputs", tensors_to_json(inputs)},
          {"outputs", tensors_to_json(outputs)},
          {"threads", threads}};
}

nlohmann::json generate_job(const std::string& library, std::uint64_t seed,
                            const std::vector<TensorInfo>& inputs) {
  return {{"op", "generate"},
          {"library", library},
          {"seed", seed},
          {"inputs", tensors_to_json(inputs)}};
}

}  // namespace kforge::runner
