#pragma once
// Which target the modes' kernels are written for, and so how they are named, compiled and judged:
// the cpp target through eval::evaluate on the task's host compiler (as before targets existed),
// any other through its own compiler and Target::evaluate. One place, so auto, search and hitl
// never ask which target they serve.

#include <string>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/eval/task_context.h"
#include "kforge/target/target.h"

namespace kforge::modes {

struct KernelJudge {
  const target::Target* target = nullptr;   // null: the cpp target
  toolchain::Compiler* compiler = nullptr;  // the target's (Target::make_compiler); null for cpp

  bool host_target() const;         // cpp: the host compiler and eval::evaluate
  bool python_kernel() const;       // pallas: a Python file, no -D tunables, nothing to link
  std::string kernel_file() const;  // kernel.cpp, kernel.cu, kernel.py
  std::string best_file() const;    // best.cpp, best.cu, best.py

  eval::Evaluation evaluate(const eval::TaskContext& ctx, const std::string& source,
                            const std::string& file_name, const eval::EvalOptions& options) const;
  // `challenger` against `incumbent` side by side in one run, on this target's judge.
  eval::PairedDecision decide_paired(const eval::TaskContext& ctx, const std::string& challenger,
                                     const std::string& incumbent,
                                     const std::string& incumbent_label,
                                     const eval::EvalOptions& options) const;
  // Why `source` does not build (the compiler's errors, or the link check's refusal); "" when it
  // builds.
  std::string build_failure(const eval::TaskContext& ctx, const std::string& source,
                            const eval::EvalOptions& options) const;
};

}  // namespace kforge::modes
