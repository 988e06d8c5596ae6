#pragma once
// What the sub-agents are told about where a run stands: the task, the machine, the budget left,
// the baseline, the best kernel so far with its evaluation, profile and tuning, and every earlier
// attempt. The modes (auto, search, hitl) keep it; the agents only read it. Each fact is rendered
// by exactly one function here, so a request carries one copy of it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/agents/knowledge_index.h"
#include "kforge/agents/reply_parsers.h"
#include "kforge/agents/search_standing.h"
#include "kforge/eval/evaluation.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/task_context.h"
#include "kforge/targets/bound_target.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::agents {

struct AttemptRecord {
  int iteration = 0;
  std::string strategy;  // what was tried: the plan's Strategy section
  std::string verdict;   // the final verdict; "no kernel" when none was written
  std::optional<double> median_ms;
  std::optional<eval::SpeedupStats> speedup;
  double roofline = 0;
  std::string
      failure;  // why it is not correct, or why no kernel came (the error, the last fix tried)
  std::string tuning;  // the tuner's summary
  std::optional<Diagnosis> diagnosis;
  // Its side-by-side result against the best kernel of the time (PairedDecision::describe:
  // "no faster than iteration 1 (a tie keeps it): 0.999x iteration 1 (95% CI 0.981–1.018), side
  // by side"); "" when it was not compared (the first correct kernel, a failure).
  std::string paired;
};

// A partner timed in this loop besides the one each kernel is paired with (with --beat xla, the
// task's libtorch baseline.cpp, timed beside XLA before iteration 1).
struct PartnerTime {
  std::string name;  // as the prompts name it: "PyTorch eager, libtorch"
  double median_ms = 0;
  std::string when;  // "measured beside XLA (jax.jit) before iteration 1"
};

struct BestKernel {
  std::string source;
  eval::Evaluation evaluation;
  std::optional<Diagnosis> diagnosis;
  int iteration = 0;
  std::string tuning;  // the tuner's table of variants and times ("" when it declared no tunables)
};

// How much of the run is left. iterations == 0: no limit (a hitl session, driven by a person).
struct RunBudget {
  int iteration = 0;            // the current one, from 1
  int iterations = 0;           // the run stops after this many
  int patience = 0;             // ... or after this many in a row without a faster correct kernel
  int without_improvement = 0;  // iterations in a row so far without one
  int fixes_per_kernel = 0;     // the debugger's attempts for each kernel (0: not limited)
  std::string unit = "run";     // what the limits end: "run", or "search expansion"
};

// What the run's kernels are written in and run on, as the agents must be told: the target's
// side of every request. The defaults are the cpp target's (kernels for this CPU, built by the
// task's own compiler), so a run that sets nothing is the CPU run it always was.
struct KernelDialect {
  std::string target = "cpp";  // what --target named
  std::string fence = "cpp";   // the code-block language kernels are shown and asked for in
  // kforge_task.h as the target generates it (cuda: <cuda_runtime.h>, the stream parameter);
  // empty: the task context's own (the cpp header).
  std::string header;
  int extra_parameters = 0;  // after the buffers: cuda's stream
  // The compiler kernels are built with; null: the task context's (the host compiler).
  toolchain::Compiler* compiler = nullptr;
  // A GPU target: the device kernels run on, or why there is none on this machine.
  bool gpu = false;
  std::string arch;                          // "sm_90": what kernels are compiled for
  const eval::GpuProfile* device = nullptr;  // null: no device found
  std::string device_missing;                // "no CUDA device: ..." when device is null
  // The host CPU's roofline bounds the kernels and the baseline was timed alone (cpp); else the
  // baseline is timed beside each kernel and no roofline is quoted.
  bool roofline = true;
};

// What the agents are told of `target`'s kernels for the task in `host`: its kforge_task.h and
// parameters, its code fence, the compiler that builds its kernels, and for a GPU target the
// device (or why there is none).
KernelDialect kernel_dialect(const target::BoundTarget& target, const eval::TaskContext& host);

struct LoopState {
  const eval::TaskContext* task = nullptr;
  const eval::MachineProfile* machine = nullptr;  // the CPU (the cpp target's machine)
  KernelDialect dialect;
  int threads = 1;
  double baseline_ms = 0;  // the partner's median at this size: the latest measurement
  // The partner: what every kernel is paired with and aims to beat (--beat): libtorch eager by
  // default, or a peer (XLA, torch.compile, current PyTorch), named so in every prompt (the
  // system prompt's "timed against", every speedup and time), never "the baseline" when it is not.
  std::string baseline_name = "PyTorch eager, libtorch";
  std::string baseline_when;  // which measurement that was ("measured alone before iteration 1")
  std::vector<PartnerTime> other_partners;  // shown beside the partner's time; may be empty
  double roofline_ms = 0;                   // the time at 100% of the roofline
  // Said once the machine's peaks were re-measured during the run ("peak re-measured: 532.6
  // GFLOP/s, was 485.6; rooflines re-based"); "" while they were not.
  std::string peaks_note;
  RunBudget budget;
  std::optional<BestKernel> best;
  std::vector<AttemptRecord> history;
  std::vector<std::string> events;  // a hitl session's steps, oldest first
  // Set when the run is one expansion of a search: the node it grows, its siblings, the search's
  // best and budget (search_standing.h).
  std::optional<SearchStanding> search;
};

// Which playbook sections fit this loop's requests: the task's tags; its bound at its size (its
// arithmetic intensity against the balance of the peaks its kernels are measured against: the
// CPU's at the loop's threads, a GPU's FP32 ridge; "" without peaks); the CPU's widest vectors
// from its detected ISA ("" for kernels that do not run on the CPU).
PlaybookFit playbook_fit(const LoopState& s);

// Text blocks for the prompt templates, one fact each.
// Spec, notes, kforge_task.h (the dialect's when it has one), reference.
std::string describe_task(const eval::TaskContext& task, const KernelDialect& dialect = {});
// The CPU (core, clock, ISA, caches, peaks) or, for a GPU target, the device (SMs, memory, L2,
// the architecture's limits, measured peaks); then the kernels' compiler and flags.
std::string describe_machine(const LoopState& s);
std::string describe_budget(const LoopState& s);  // iterations and patience left
// The partner and its time, the other partners' times, the roofline bound, the best kernel.
std::string describe_standing(const LoopState& s);
std::string describe_history(
    const LoopState& s);  // every earlier attempt, the best one by reference
// For the profiler, which sees the kernel of `source` in full: the partner, and the best kernel's
// figures (not its source, hot lines or tuning), or that this kernel is the best.
std::string describe_best_figures(const LoopState& s, const std::string& source);
// Verdict, times, speedup against `partner` (the loop's partner by name) and its interval,
// roofline (with `roofline_caveat` when the kernel does fewer operations than the cost model),
// load.
std::string describe_evaluation(const eval::Evaluation& e, const std::string& partner,
                                const std::string& roofline_caveat = "");
// What the kernel of `text` (a plan's strategy, a source) does fewer operations by, for this
// task ("" when nothing says so): see cheaper_algorithm.h.
std::string fewer_operations(const LoopState& s, std::string_view text);
std::string describe_hot_spots(
    const eval::Evaluation& e);  // samples by object and hot lines, with uncertainty
std::string describe_vectorization(const eval::Evaluation& e);
// What ptxas says each GPU kernel uses (registers, spills, shared memory, occupancy) and the
// Nsight Compute metrics when they were collected; "(not a GPU kernel)" otherwise.
std::string describe_resources(const eval::Evaluation& e);

}  // namespace kforge::agents
