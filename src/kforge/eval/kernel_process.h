#pragma once
// kforge's handle on one kernel process: a kforge-run child holding one implementation (the
// candidate, the baseline, the reference, an --against kernel), each in a process of its own so
// that none can see, call or disturb another. The process only runs calls; everything that decides
// a verdict or a time happens here, in kforge's process:
//   - kforge poisons the outputs, starts the call and takes the time on its own clock, from the
//     command to the moment the runner says the call returned;
//   - that claim is checked: kforge copies the outputs at once (in an order the kernel cannot
//     predict), waits until the process uses no CPU, and finds the outputs unchanged;
//   - the CPU the process uses is read from outside (its process CPU clock), so work it leaves
//     running while another process is timed is seen.
// A message from the runner can only make a verdict worse (a fault, an error); it never supplies a
// time, a comparison or a success.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/task_resolve.h"
#include "kforge/eval/output_sample.h"
#include "kforge/eval/output_snapshot.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/eval/runner_process.h"
#include "kforge/eval/shared_set.h"
#include "kforge/runner/control_page.h"

namespace kforge::eval {

struct KernelProcessSpec {
  std::string who =
      "the kernel";  // for reasons: "the kernel", "the baseline", "the --against kernel"
  bool trusted =
      false;  // trusted code is loaded before the sandbox closes and runs without seccomp
  std::filesystem::path library;  // in `folder`, the only folder of kforge's the process may read
  std::filesystem::path folder;
  // More folders it may read (trusted code only: the torch wheel a baseline loads libtorch from).
  std::vector<std::filesystem::path> readable;
  std::vector<std::string> preload;  // sonames an untrusted library needs (its DT_NEEDED)
  // A Python implementation instead of `library`: the worker runs it (python_kernel.h), with
  // `folder` (which holds kforge_task.py) as its writable scratch.
  std::optional<PythonKernel> python;
  const core::ResolvedTask* task = nullptr;
  std::vector<const SharedSet*> input_sets;  // [0]: the timing inputs, then the check sets it runs
  // The process's own output sets (two, used in turn), mapped by kforge and by this process only:
  // no page is writable by both sides of a pair, so neither can drop, read or stall the other's
  // outputs (MADV_REMOVE on a shared set once made a partner 1.9x slower). kforge poisons a set
  // right before each call and copies what it compares.
  std::vector<SharedSet*> output_sets;
  int threads = 1;
  std::vector<int>
      cpus;  // the evaluation's CPUs (cpu_choice.h), the same for both sides; empty: all
  std::size_t memory_bytes = 0;
  long cpu_seconds = 600;
  bool timed = true;  // false: a check only, whose OpenMP workers sleep at once (runner_process.h)
  // Ctrl-C: a wait for the process (loading, a call) that sees it turn true kills the process and
  // ends with the verdict interrupted, within about 50 ms. Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

struct CallOutcome {
  double ms = 0;                     // kforge's clock, command to the claim of return
  std::optional<Judgement> failure;  // a crash, a forbidden call, a timeout, a death
};

// After a return: is the process settled, still settling, or running work it left behind?
// The bound is the CPU the process used since the return, not the wall time: on a loaded machine a
// worker that spins briefly before sleeping (libgomp, OpenBLAS: up to ~0.1 s of CPU) may wait
// seconds for a core, and a wall-clock bound judged correct kernels as leaving work running (seen
// at load 18 on two cores). Work really left running uses CPU whenever it is scheduled, so it
// reaches the CPU bound; the wall bound (30 times longer) only ends a wait that cannot end.
enum class SettleState { settled, settling, left_running };
struct SettleSample {
  double cpu_since_return_ms = 0;  // all threads of the process, since the call returned
  double wall_since_return_ms = 0;
  bool quiet_window = false;  // the last window: under 10% of a core used and no thread runnable
};
SettleState settle_state(const SettleSample& s, double max_cpu_s);

class KernelProcess {
 public:
  static Result<KernelProcess> start(const KernelProcessSpec& spec);

  // Waits until the process has loaded its kernel (a trusted one has also run it once).
  std::optional<Judgement> wait_ready(double timeout_s);
  // Poisons output set `out`, runs one call on input set `set` and waits for it to return.
  CallOutcome call(std::uint32_t set, std::uint32_t out, double timeout_s,
                   const std::string& phase);
  // The median round trip of `n` empty commands: the harness's cost per call, in milliseconds.
  double round_trip_ms(int n);
  // Copies the outputs as they are now (see output_snapshot.h).
  void snapshot(std::uint32_t out, OutputSnapshot& into, std::mt19937_64& rng) const;
  bool unchanged_since(std::uint32_t out, const OutputSnapshot& snapshot) const;
  // The same for the bytes `sample` names (see output_sample.h).
  void snapshot(std::uint32_t out, const OutputSample& sample, OutputSnapshot& into,
                std::mt19937_64& rng) const;
  bool unchanged_since(std::uint32_t out, const OutputSample& sample,
                       const OutputSnapshot& taken) const;
  // Output set `out` as kforge maps it, and the outputs' sizes.
  const std::vector<const unsigned char*>& outputs(std::uint32_t out) const;
  const std::vector<std::size_t>& output_bytes() const;

  // The process's CPU time so far (all its threads), read from outside.
  double cpu_ms() const;
  // Between the calls of a timing every thread of the process is stopped (SIGSTOP), so nothing
  // it runs, a worker spinning after its region or a thread left behind, takes a CPU from what
  // is timed meanwhile or works outside its calls. begin_freeze() sends the stop and returns at
  // once (the outputs are copied while it lands); wait_frozen() returns when every thread has
  // stopped, or judges the process's death. thaw() lets it run again: its workers resume as they
  // were, spinning if they were, as between the calls of a model's forward pass.
  void begin_freeze();
  std::optional<Judgement> wait_frozen(const std::string& phase);
  void thaw();
  // Still stopped: nothing let it run since wait_frozen() (no kernel can: it signals only itself).
  bool frozen() const;

  // Waits until the process stops using CPU (OpenMP and OpenBLAS workers spin for a moment after
  // a parallel region). False if it used more than `max_cpu_s` of CPU after the return without
  // settling: work left running (see settle_state below for why CPU, not wall time, is the bound).
  bool settle(double max_cpu_s);

  // A failure if anything was written to the runner's channel that kforge did not ask for: the
  // runner itself speaks only when spoken to, so such a message comes from the kernel.
  std::optional<Judgement> channel_untouched(const std::string& phase);

  // Samples the kernel's hot spots for `seconds` (advice for the model, never a verdict).
  Result<nlohmann::json> profile(double seconds, double timeout_s);
  void stop();

  const std::string& who() const;
  int pid() const;  // its threads are kforge's own work to the load probe
  bool trusted() const;
  int landlock_abi() const;
  std::string printed() const;
  // What the process said when ready: for a Python kernel its framework, version, compile and
  // warm-up seconds and the per-call cost of its output copy. A claim, for the report only.
  const nlohmann::json& ready_report() const;

  KernelProcess(KernelProcess&&) noexcept;
  KernelProcess& operator=(KernelProcess&&) noexcept;
  ~KernelProcess();

 private:
  struct State;
  explicit KernelProcess(std::unique_ptr<State> state);
  CallOutcome run_command(runner::Command command, std::uint32_t set, double timeout_s,
                          const std::string& phase);
  Judgement failure(const std::string& why, const std::string& phase, double timeout_s);
  bool cancelled() const;
  // Kills the process after a Ctrl-C: the verdict interrupted, not a judgement of the kernel.
  Judgement interrupted(const std::string& phase);

  std::unique_ptr<State> s_;
};

}  // namespace kforge::eval
