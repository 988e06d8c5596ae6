// The bf16 tolerance. bfloat16 keeps 8 significant bits: one rounding has a relative error of at
// most 2^-9, so an elementwise op chain sees a few of them (each input rounded, the output rounded,
// the kernel and the reference rounding intermediates in different places). rtol = 2^-6 (4 ulps)
// covers that with room. A reduction of depth n (a dot product, a mean) adds n such roundings of
// terms of the inputs' scale, which grow like a random walk, sqrt(n) · 2^-9 of one term; near a
// cancellation that is an absolute error, not a relative one, so atol = 2^-6 · sqrt(n), with n
// the task's flops per output element over 2 (its [cost] formula: 2K for a GEMM of depth K). A
// task whose inputs are not of unit scale, or whose error grows faster (a softmax over a long
// axis, a chain of GEMMs), states its own [check.bf16] in task.toml.
#include "kforge/core/dtype_tolerance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kforge::core {
namespace {

constexpr double kBf16Rtol = 1.0 / 64;  // 2^-6: 4 ulps of bfloat16

double output_elements(const ResolvedTask& task) {
  double n = 0;
  for (const auto& o : task.outputs) n += static_cast<double>(o.numel);
  return std::max(n, 1.0);
}

}  // namespace

Status check_dtype_name(const std::string& dtype) {
  if (dtype == "f32" || dtype == "bf16") return ok_status();
  return Error{fmt::format("unknown --dtype '{}' (kforge knows f32 and bf16)", dtype)};
}

ResolvedTask at_dtype(ResolvedTask task, const std::string& dtype) {
  if (dtype != "bf16") return task;
  double rtol = kBf16Rtol;
  double depth = task.flops > 0 ? std::max(1.0, task.flops / output_elements(task) / 2) : 1.0;
  double atol = kBf16Rtol * std::sqrt(depth);
  // [check.bf16] in task.toml: the loader keeps it like a [check.<size>] table (no size is named
  // bf16), so a task states its own bf16 tolerance without a new field.
  if (task.spec)
    if (auto it = task.spec->size_tolerance.find("bf16"); it != task.spec->size_tolerance.end())
      std::tie(rtol, atol) = it->second;
  task.rtol = std::max(task.rtol, rtol);
  task.atol = std::max(task.atol, atol);
  return task;
}

}  // namespace kforge::core
