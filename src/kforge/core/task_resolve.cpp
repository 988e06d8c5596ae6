// Evaluates shapes and cost formulas for one size preset.
#include "kforge/core/task_resolve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "kforge/core/suggest.h"

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
  if (init.dist == Dist::normal && !(init.b > 0))
    return Error{fmt::format("{}.init.std: must be positive, is {}", field, init.b)};
  if ((init.dist == Dist::uniform || init.dist == Dist::randint) && !(init.b > init.a))
    return Error{
        fmt::format("{}.init.high ({}) must be greater than low ({})", field, init.b, init.a)};
  if (init.dist == Dist::randint && (init.a != std::floor(init.a) || init.b != std::floor(init.b)))
    return Error{fmt::format("{}.init: randint bounds must be integers", field)};
  return ok_status();
}

Result<ResolvedTensor> resolve_tensor(const TensorSpec& t, const Symbols& symbols,
                                      const std::string& field) {
  ResolvedTensor r{t.name, t.dtype, {}, 1, 0, t.init, t.mutate};
  if (auto st = resolve_init(r.init, symbols, field); !st) return st.error();
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    auto v = evaluate_expr(t.shape[d], symbols);
    if (!v) return Error{fmt::format("{}.shape[{}]: {}", field, d, v.error().message)};
    double x = *v;
    if (!(x >= 1) || x != std::floor(x) || x > 1e15)
      return Error{fmt::format("{}.shape[{}]: '{}' = {} is not a positive integer", field, d,
                               t.shape[d], x)};
    r.shape.push_back(static_cast<std::int64_t>(x));
    if (r.numel > std::numeric_limits<std::int64_t>::max() / r.shape.back())
      return Error{fmt::format("{}: element count overflows", field)};
    r.numel *= r.shape.back();
  }
  if (static_cast<std::uint64_t>(r.numel) >
      std::numeric_limits<std::size_t>::max() / dtype_size(t.dtype))
    return Error{fmt::format("{}: byte count overflows", field)};
  r.bytes = static_cast<std::size_t>(r.numel) * dtype_size(t.dtype);
  return r;
}

// A cost formula feeds GFLOP/s and the roofline: inf or NaN there would poison every report.
Result<double> resolve_cost(const std::string& expr, const Symbols& symbols,
                            const std::string& field) {
  auto v = evaluate_expr(expr, symbols);
  if (!v) return Error{fmt::format("{}: {}", field, v.error().message)};
  if (!std::isfinite(*v))
    return Error{fmt::format("{}: '{}' = {} is not a finite number", field, expr, *v)};
  return *v;
}

// "4.0 TiB", "512.0 MiB", "16 B".
std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

double total_bytes(const std::vector<ResolvedTensor>& tensors) {
  double n = 0;  // a double cannot wrap around, whatever the sizes
  for (const auto& t : tensors) n += static_cast<double>(t.bytes);
  return n;
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

Result<ResolvedTask> resolve_task_shapes(const TaskSpec& spec, const std::string& size_name) {
  std::string name = size_name.empty() ? spec.default_size : size_name;
  const SizePreset* preset = spec.find_size(name);
  if (!preset) {
    std::vector<std::string> names;
    for (const auto& s : spec.sizes) names.push_back(s.name);
    return Error{fmt::format("task {} has no size '{}' (it has: {}){}", spec.id, name,
                             fmt::join(names, ", "), did_you_mean(name, names))};
  }
  ResolvedTask r;
  r.spec = &spec;
  r.size = name;
  r.symbols = preset->symbols;
  r.rtol = spec.rtol;
  r.atol = spec.atol;
  if (auto it = spec.size_tolerance.find(name); it != spec.size_tolerance.end())
    std::tie(r.rtol, r.atol) = it->second;
  for (const auto& p : spec.params) {
    if (auto* i = std::get_if<std::int64_t>(&p.value))
      r.symbols[p.name] = static_cast<double>(*i);
    else if (auto* d = std::get_if<double>(&p.value))
      r.symbols[p.name] = *d;
  }
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    auto t =
        resolve_tensor(spec.inputs[i], r.symbols,
                       fmt::format("sizes.{}: inputs[{}] ('{}')", name, i, spec.inputs[i].name));
    if (!t) return t.error();
    r.inputs.push_back(std::move(*t));
  }
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    auto t =
        resolve_tensor(spec.outputs[i], r.symbols,
                       fmt::format("sizes.{}: outputs[{}] ('{}')", name, i, spec.outputs[i].name));
    if (!t) return t.error();
    r.outputs.push_back(std::move(*t));
  }
  if (!spec.cost_flops.empty()) {
    auto v = resolve_cost(spec.cost_flops, r.symbols, fmt::format("sizes.{}: cost.flops", name));
    if (!v) return v.error();
    r.flops = *v;
  }
  if (!spec.cost_bytes.empty()) {
    auto v = resolve_cost(spec.cost_bytes, r.symbols, fmt::format("sizes.{}: cost.bytes", name));
    if (!v) return v.error();
    r.bytes = *v;
  }
  return r;
}

Result<ResolvedTask> resolve_task(const TaskSpec& spec, const std::string& size_name) {
  auto r = resolve_task_shapes(spec, size_name);
  if (!r) return r;
  if (auto fits = check_fits_memory(*r, physical_memory_bytes()); !fits) return fits.error();
  return r;
}

Status check_fits_memory(const ResolvedTask& task, std::uint64_t machine_bytes) {
  double in = total_bytes(task.inputs), out = total_bytes(task.outputs);
  if (in + out <= static_cast<double>(machine_bytes)) return ok_status();
  std::string id = task.spec ? task.spec->id : std::string("?");
  return Error{
      fmt::format("task {} at size '{}': the buffers need {} (inputs {}, outputs {}) but this "
                  "machine has {} of memory; "
                  "choose a smaller size",
                  id, task.size, format_bytes(in + out), format_bytes(in), format_bytes(out),
                  format_bytes(static_cast<double>(machine_bytes)))};
}

std::uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return std::numeric_limits<std::uint64_t>::max();  // unknown: let the mapping decide
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

}  // namespace kforge::core
