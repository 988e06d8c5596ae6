#pragma once
// Paired, interleaved timing, run from kforge's process over two kernel processes. Each pair:
// perturb the inputs with a fresh secret draw; let the candidate run and call it (timed on kforge's
// clock), stop its process (SIGSTOP: no thread of it runs until its next call) while copying its
// outputs (all of them on an audited pair, random lines otherwise: see output_sample.h); rewrite
// the same inputs (the same prelude: inputs just written, own outputs just poisoned); let the
// partner run, call it and stop it the same way; then check both sides' outputs did not change
// since the copy and compare them. The candidate always runs first on fresh data, so it can never
// find the partner's answer for that data anywhere. Between its calls neither process can take a
// CPU from the other or work outside its time, and no pair waits for a process to go idle: a pair
// costs its two calls, two stops and the copies.

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "kforge/core/task_resolve.h"
#include "kforge/eval/kernel_process.h"
#include "kforge/eval/runner_failure.h"

namespace kforge::eval {

struct PairedTimingRequest {
  double budget_s = 2.0;
  double warmup_s = 0.1;
  int min_pairs = 10;
  int max_pairs = 2000;
  double perturb = 0.05;
  double call_timeout_s = 30;
  // One pair in `audit_every` (and every warm-up pair, and the last) has its outputs copied and
  // compared in full; the others, random lines of them (see output_sample.h). 1: every pair.
  int audit_every = 8;
  std::size_t sample_lines = 1024;  // per output, on the other pairs
  // Timed alone (no partner), each call waits until its process has been stopped this long: the
  // rhythm it had beside the other side (PairedTiming::partner_idle_ms). A processor idle for a
  // millisecond may be halted by the hypervisor, and the next call pays to wake it: a 12p_rmsnorm
  // baseline at the ci size read 0.14-0.16 ms called back to back and 0.19-0.24 ms between the
  // kernel's calls, and 0.19-0.20 ms alone with a 1 ms pause before each call.
  double idle_before_call_ms = 0;  // callers cap it at kLongestAlonePauseMs
  std::function<void()>
      between_pairs;  // optional: called before every pair, both processes stopped (load sampling)
  // Ctrl-C: the GPU timing stops before its next pair (the cpu target's processes read
  // KernelProcessSpec::cancel). Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

// Past a few milliseconds idle a processor is as asleep as it gets: a longer pause before each
// call timed alone would only lengthen the timing.
inline constexpr double kLongestAlonePauseMs = 5;

struct PairedTiming {
  std::vector<double> candidate_ms, partner_ms;  // per measured pair, kforge's clock
  int warmup_pairs = 0;
  int audited_pairs = 0;  // pairs whose outputs were copied and compared in full
  int untimed_pairs = 0;  // after the warm-up: checked, not timed (an audit's, and the next)
  // The partner's median pause before a call: from its stop after a call to its next call.
  double partner_idle_ms = 0;
  std::optional<Judgement> failure;
};

// The timing inputs: kforge's writable view of a sealed set (the kernels map it read-only) and the
// pristine values each perturbation starts from.
class TimingInputs {
 public:
  explicit TimingInputs(SharedSet& set, const core::ResolvedTask& task);
  void perturb(std::uint64_t seed, double spread);
  const SharedSet& set() const { return *set_; }

 private:
  SharedSet* set_;
  const core::ResolvedTask* task_;
  std::vector<std::vector<unsigned char>> pristine_;
};

// Half the width of the 95% confidence interval of the median, relative to it: the stop rule of
// every paired timing (at the budget, stop once ±2%; up to three budgets; early at ±1%).
double median_ci_relative(std::vector<double> v);

// The stop rule of every paired timing (cpu and GPU), asked after each measured pair: at
// max_pairs; never before min_pairs; at the budget (`spent_s` of it used) once the median of the
// ratios (of the times, when timed alone) is known to ±2%, up to three budgets; early once it is
// known to ±1% (kEarlyStopCi), but not before a tenth of the budget.
inline constexpr double kEarlyStopCi = 0.01;
bool timing_done(const PairedTiming& t, const PairedTimingRequest& req, double spent_s);

// The pause before a side's start, counted from the other side's stop, given the other side's own
// last pause before its start: at least that, at least 0.1 ms, at most 1 ms. The judge's work
// between the partner's return and the candidate's next call (comparing, the stop rule, load
// samples) is longer than between the candidate's return and the partner's call, and a processor
// idle longer wakes slower on a VM: an A/A of 12p_rmsnorm at the ci size read 0.979x and 0.981x
// over five runs each (intervals excluding 1), and 1.00x and 0.997x once each side's pause was
// brought up to the other's or 0.1 ms.
double even_pause_ms(double other_natural_ms);

// `partner` may be null (timed alone). The comparison of timed outputs allows twice the task's
// tolerance: both sides approximate the exact result.
PairedTiming time_paired(KernelProcess& candidate, KernelProcess* partner, TimingInputs& inputs,
                         const core::ResolvedTask& task, const PairedTimingRequest& request);

}  // namespace kforge::eval
