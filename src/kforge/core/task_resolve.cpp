// Evaluates shapes and cost formulas for one size preset.
#include "kforge/core/task_resolve.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace kforge::core {
namespace {

Result<ResolvedTensor> resolve_tensor(const TensorSpec& t, const Symbols& symbols, const std::string& field) {
  ResolvedTensor r{t.name, t.dtype, {}, 1, 0, t.init, t.mutate};
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    auto v = evaluate_expr(t.shape[d], symbols);
    if (!v) return Error{fmt::format("{}.shape[{}]: {}", field, d, v.error().message)};
    double x = *v;
    if (!(x >= 1) || x != std::floor(x) || x > 1e15)
      return Error{fmt::format("{}.shape[{}]: '{}' = {} is not a positive integer", field, d, t.shape[d], x)};
    r.shape.push_back(static_cast<std::int64_t>(x));
    if (r.numel > std::numeric_limits<std::int64_t>::max() / r.shape.back())
      return Error{fmt::format("{}: element count overflows", field)};
    r.numel *= r.shape.back();
  }
  r.bytes = static_cast<std::size_t>(r.numel) * dtype_size(t.dtype);
  return r;
}

}  // namespace

std::size_t ResolvedTask::input_bytes() const {
  std::size_t n = 0;
  for (const auto& t : inputs) n += t.bytes;
  return n;
}

std::size_t ResolvedTask::output_bytes() const {
  std::size_t n = 0;
  for (const auto& t : outputs) n += t.bytes;
  return n;
}

Result<ResolvedTask> resolve_task(const TaskSpec& spec, const std::string& size_name) {
  std::string name = size_name.empty() ? spec.default_size : size_name;
  const SizePreset* preset = spec.find_size(name);
  if (!preset) {
    std::string known;
    for (const auto& s : spec.sizes) known += (known.empty() ? "" : ", ") + s.name;
    return Error{fmt::format("task {} has no size '{}' (it has: {})", spec.id, name, known)};
  }
  ResolvedTask r;
  r.spec = &spec;
  r.size = name;
  r.symbols = preset->symbols;
  for (const auto& p : spec.params) {
    if (auto* i = std::get_if<std::int64_t>(&p.value)) r.symbols[p.name] = static_cast<double>(*i);
    else if (auto* d = std::get_if<double>(&p.value)) r.symbols[p.name] = *d;
  }
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    auto t = resolve_tensor(spec.inputs[i], r.symbols, fmt::format("sizes.{}: inputs[{}] ('{}')", name, i, spec.inputs[i].name));
    if (!t) return t.error();
    r.inputs.push_back(std::move(*t));
  }
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    auto t = resolve_tensor(spec.outputs[i], r.symbols, fmt::format("sizes.{}: outputs[{}] ('{}')", name, i, spec.outputs[i].name));
    if (!t) return t.error();
    r.outputs.push_back(std::move(*t));
  }
  if (!spec.cost_flops.empty()) {
    auto v = evaluate_expr(spec.cost_flops, r.symbols);
    if (!v) return Error{fmt::format("sizes.{}: cost.flops: {}", name, v.error().message)};
    r.flops = *v;
  }
  if (!spec.cost_bytes.empty()) {
    auto v = evaluate_expr(spec.cost_bytes, r.symbols);
    if (!v) return Error{fmt::format("sizes.{}: cost.bytes: {}", name, v.error().message)};
    r.bytes = *v;
  }
  return r;
}

}  // namespace kforge::core
