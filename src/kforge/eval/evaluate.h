#pragma once
// The evaluation pipeline, the judge every number in kforge comes from:
//   compile → link check → run in the sandbox → check on secret inputs → time against the
//   baseline → roofline. Each step lives in its own file; evaluate.cpp calls them in order.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/eval/evaluation.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/quiet_wait.h"
#include "kforge/eval/task_context.h"

namespace kforge::eval {

class Executor;

struct EvalOptions {
  int threads = 0;   // 0: all logical CPUs
  bool time = true;  // time after a correct check
  // Every timed call is paired, and its output compared, with a trusted partner on the same data:
  // the task's baseline (the speedup kforge reports), or its reference (for tasks without a
  // baseline, and for quick runs that skip loading libtorch). --against replaces either.
  enum class Partner { baseline, reference };
  Partner partner = Partner::baseline;
  // A peer replaces the partner: torch, torch-compile, torch-compile-max or xla (python_kernel.h),
  // each the task's Python port run by the worker in a process of its own, checked on every
  // secret set like the candidate (a peer that disagrees with the reference fails the evaluation
  // with partner_failed set: an error row, never a speedup).
  std::string peer;
  // The kernel's own toolchain when it is not the task's host compiler (pallas: the Python
  // checker); null: the context's compiler.
  toolchain::Compiler* kernel_compiler = nullptr;
  // "": the kernel is a shared object kforge-run loads. "pallas": a Python module defining
  // kernel(*inputs), run by the worker (python_kernel.h) under its Pallas rules, with `dtype` the
  // dtype its floating inputs arrive in (and the check tolerance: core/dtype_tolerance.h).
  std::string kernel_framework;
  std::string dtype = "f32";
  std::string against_source;  // --against: another kernel replaces the baseline
  std::string against_name;
  toolchain::Role against_role =
      toolchain::Role::candidate;  // expert: trusted (e.g. oneDNN), loaded before the sandbox
  toolchain::Role role = toolchain::Role::candidate;  // expert / baseline / reference are trusted
  std::vector<std::string> allow_libs;                // extra libraries a candidate may link
  std::vector<std::string> extra_flags;               // e.g. -DTILE=8 from the tuner
  int check_sets = 3;
  double time_budget_s = 2.0;
  double warmup_s = 0.1;
  int min_pairs = 10;
  int max_pairs = 2000;
  // Timing pairs compared in full: one in `audit_every`; the others, `sample_lines` random lines of
  // each output (see output_sample.h). Tests lower them to reach the sampled path at the ci size.
  int audit_every = 8;
  std::size_t sample_lines = 1024;
  double call_timeout_s = 30;  // for each check call
  // Until the kernel's process is ready (loaded; a Python kernel also traced, compiled and warmed
  // up); 0: 180 s, 600 s for a Python kernel.
  double ready_timeout_s = 0;
  double perturb = 0.05;
  std::size_t memory_bytes = 0;    // 0: max(2 GiB, 4× the task's buffers)
  double profile_seconds = 0;      // > 0: sample hot spots for this long after timing, and ask the
                                   // compiler for its vectorization remarks
  std::filesystem::path dump_dir;  // --dump: write check inputs and outputs as .npy here
  const MachineProfile* machine = nullptr;  // for the roofline (optional)
  MachineLock* machine_lock = nullptr;      // shared by concurrent evaluations (search)
  QuietWaiter* quiet_waiter =
      nullptr;  // waits (bounded) for a quiet machine before timing (optional)
  std::function<void(std::string_view)> progress;  // phase messages for humans (optional)
  // Ctrl-C (the CLI's interrupt flag, or a test's): once it turns true the evaluation starts no
  // new step, its kernel processes are killed within a poll (about 50 ms) and it ends with the
  // verdict interrupted, naming the step. Null: never cancelled.
  const std::atomic<bool>* cancel = nullptr;
  // Where the evaluation runs (executor.h): null, this process; a Slurm executor, a job on a node.
  Executor* executor = nullptr;
  // The check inputs' seeds instead of the task's secret pool: only a cluster job sets them (the
  // node has no pool; the driver hands it the draws of this one evaluation, sealed).
  std::vector<std::uint64_t> check_seeds;
};

// Runs the evaluation where options.executor says (here when it is null).
Evaluation evaluate(const TaskContext& ctx, const std::string& source, const std::string& file_name,
                    const EvalOptions& options);
// The pipeline in this process: what the local executor runs, and what a cluster job runs on its
// node. Everything but the executor seam calls evaluate().
Evaluation evaluate_here(const TaskContext& ctx, const std::string& source,
                         const std::string& file_name, const EvalOptions& options);

}  // namespace kforge::eval
