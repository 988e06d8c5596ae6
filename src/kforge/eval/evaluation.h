#pragma once
// The outcome of evaluating one implementation of one task: the verdict and its reason, the
// compile diagnostics, the mismatch report, the paired timings and the roofline.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/load_probe.h"
#include "kforge/eval/mismatch.h"
#include "kforge/eval/ncu_report.h"
#include "kforge/eval/partner_pace.h"
#include "kforge/eval/profile.h"
#include "kforge/eval/quiet_wait.h"
#include "kforge/eval/timing_stats.h"
#include "kforge/eval/verdict.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::eval {

struct PhaseTimes {
  double compile_s = 0, partner_s = 0, prepare_s = 0, check_s = 0, time_s = 0,
         total_s = 0;  // partner_s: building the baseline or reference
};

struct Evaluation {
  Verdict verdict = Verdict::runtime_error;
  std::string reason;
  std::string task_id;
  std::string size;
  std::string role = "candidate";
  int threads = 0;
  std::vector<int>
      cpus;  // the CPUs both kernel processes ran on, thread i on the i-th (cpu_choice.h)

  toolchain::CompileResult compile;
  std::optional<MismatchReport> mismatch;
  std::vector<double> check_ms;  // one untimed call per check set (includes first-touch costs)

  std::string partner;  // "baseline", "against <file>", a peer ("xla"), or "" when timed alone
  // The verdict is the partner's failure, not the kernel's (a peer that is wrong or crashed).
  bool partner_failed = false;
  // A Python peer's own report when it got ready (a claim, shown, never a time the verdict uses):
  // "torch 2.x" / "jax 0.x", its compile (first call) and warm-up seconds, and the median cost of
  // copying its outputs into kforge's buffers, part of each of its timed calls.
  std::string partner_version;
  double partner_compile_s = 0, partner_warmup_s = 0, partner_copy_ms = 0;
  std::string partner_seccomp;  // "on", or why the worker's filter is not in force
  // What this machine is known to do to the partner's speed, said beside every ratio against it:
  // libtorch's GEMMs on OpenBLAS's generic kernels (openblas_core_warning). "" when nothing is.
  std::string partner_note;
  // What the times are worth: "" for a native kernel (cpu, cuda: real), "interpret (cpu)" for a
  // Pallas kernel run by an interpreter on the CPU (no kernel performance: nothing may be decided
  // on it), or the accelerator's backend ("gpu", "tpu") for a Pallas kernel timed there. Decided
  // by kforge (which backend it gave the process), never by what the process claims.
  std::string timing_basis;
  std::string pallas_mode;    // the worker's report: "tpu-interpret", "interpret", "compiled (gpu)"
  std::string dtype = "f32";  // the inputs' dtype as the kernel saw them ("bf16": cast from f32)
  std::optional<TimingStats> candidate;
  std::optional<TimingStats> baseline;
  std::optional<SpeedupStats> speedup;
  int warmup_pairs = 0;
  int audited_pairs = 0;  // timing pairs whose outputs were compared in full (the rest: sampled)
  int untimed_pairs = 0;  // checked, not timed: an audit's pair and the next (paired_timing.h)
  double gflops = 0, gbps = 0, roofline = 0;
  std::string roofline_note;    // why the roofline is above 100% ("" when it is not)
  double call_overhead_ms = 0;  // the median round trip of an empty call (in both sides' times)
  double timing_start = 0, timing_end = 0;  // CLOCK_MONOTONIC seconds: the measured window
  double lock_wait_s = 0;                   // time spent waiting for the machine (search)

  std::optional<Profile> profile;  // when asked for (EvalOptions::profile_seconds)
  // A GPU kernel's hardware counters, when a profile was asked for and Nsight Compute could read
  // them (one check call under ncu); counters_note says why there are none ("" when there are).
  std::vector<NcuKernel> counters;
  std::string counters_note;
  // What a compute-sanitizer pass could not settle (a report without its summary, possible races
  // of warning severity, a call that failed only under the tool): never a verdict. "" when none.
  std::string sanitizer_note;
  // How a GPU kernel was timed: in batches of calls by events, or call by call on kforge's clock
  // (and why). Empty on the cpp target.
  std::string timing_method;

  std::string kernel_output;  // what the runner process printed (capped)
  int landlock_abi = 0;
  std::string walls;  // the walls that held around untrusted code (walls.h), for humans
  // The load outside kforge, sampled just before the timing and between pairs (both kernel
  // processes idle then). "busy" when that work needed CPUs the timing used, the hypervisor stole
  // time, the threads outnumbered the CPUs, or another kforge process kept the machine past the
  // wait bound: absolute times are then unreliable, paired ratios less so.
  std::vector<LoadSample> load_samples;
  double load_average = 0;  // the highest 1-minute load average seen
  bool machine_busy = false;
  std::string busy_reason;   // "" when not busy
  QuietWait quiet_wait;      // the bounded wait for a quiet machine before the timing
  PartnerPace partner_pace;  // the baseline's (or reference's) median against its quiet median here
  PhaseTimes phases;

  bool correct() const { return verdict == Verdict::correct; }
  // False when the times are an interpreter's: a speedup then says nothing about the kernel, and
  // the modes decide on correctness (and static properties) alone.
  bool timing_is_performance() const { return timing_basis.rfind("interpret", 0) != 0; }
};

nlohmann::json to_json(const Evaluation& e);

}  // namespace kforge::eval
