// Evaluates shapes and cost formulas for one size preset.
#include "kforge/core/task_resolve.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <tuple>

namespace kforge::core {
namespace {

// Evaluates init parameters given as expressions and checks what the loader could not.
Status resolve_init(InitSpec& init, const Symbols& symbols, const std::string& field) {
  for (auto [expr, value] : {std::pair{&init.a_expr, &init.a}, std::pair{&init.b_expr, &init.b}}) {
    if (expr->empty()) continue;
    auto v = evaluate_expr(*expr, symbols);
    if (!v) return Error{fmt::format("{}.init: {}", field, v.error().message)};
    *value = *v;
  }
  if (init.a_expr.empty() && init.b_expr.empty()) return ok_status();
  if (init.dist == Dist::normal && !(init.b > 0)) return Error{fmt::format("{}.init.std: must be positive, is {}", field, init.b)};
  if ((init.dist == Dist::uniform || init.dist == Dist::randint) && !(init.b > init.a))
    return Error{fmt::format("{}.init.high ({}) must be greater than low ({})", field, init.b, init.a)};
  if (init.dist == Dist::randint && (init.a != std::floor(init.a) || init.b != std::floor(init.b)))
    return Error{fmt::format("{}.init: randint bounds must be integers", field)};
  return ok_status();
}

Result<ResolvedTensor> resolve_tensor(const TensorSpec& t, const Symbols& symbols, const std::string& field) {
  ResolvedTensor r{t.name, t.dtype, {}, 1, 0, t.init, t.mutate};
  if (auto st = resolve_init(r.init, symbols, field); !st) return st.error();
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
  r.rtol = spec.rtol;
  r.atol = spec.atol;
  if (auto it = spec.size_tolerance.find(name); it != spec.size_tolerance.end()) std::tie(r.rtol, r.atol) = it->second;
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
