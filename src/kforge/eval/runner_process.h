#pragma once
// The parent's handle on one kforge-run child: a socket pair on descriptor 3, its output
// captured (capped), its own process group, a clean environment (no API keys), no other
// descriptor inherited (close_range), killed if kforge dies (parent-death signal), and a kill
// that takes the whole group down.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"
#include "kforge/core/result.h"
#include "kforge/runner/protocol.h"

namespace kforge::eval {

struct RunnerExit {
  bool exited = false;
  int code = 0;
  int signal = 0;
  std::string describe() const;  // "exit status 3", "killed by SIGSEGV"
};

// What the child executes, when it is not kforge-run: the Python worker (python_kernel.h).
struct RunnerLaunch {
  std::vector<std::string> argv;       // empty: kforge-run
  std::vector<std::string> extra_env;  // added to runner_environment(threads)
  // Applied in the child between fork and exec (kforge-run confines itself instead): the whole
  // program, every thread it will start and every process it may spawn, stays inside.
  const core::LandlockRuleset* landlock = nullptr;
  // The CPUs the child may run on, set between fork and exec (cpu_choice.h); empty: kforge's own.
  std::vector<int> cpus;
  // A process that is never timed (a check only): see runner_environment.
  bool passive_wait = false;
};

class RunnerProcess {
 public:
  // `threads` sets OMP_NUM_THREADS and friends for the child.
  static Result<RunnerProcess> start(int threads, const std::filesystem::path& cwd,
                                     const RunnerLaunch& launch = {});
  RunnerProcess(RunnerProcess&&) noexcept;
  RunnerProcess& operator=(RunnerProcess&&) noexcept;
  ~RunnerProcess();

  bool send(const nlohmann::json& body, const std::vector<int>& fds = {});
  // Whether a message waits on the channel (never blocks).
  bool message_waiting() const;
  Result<runner::Message> receive(std::chrono::steady_clock::time_point deadline);
  // Waits for the child to exit (killing its group at the deadline).
  RunnerExit wait(std::chrono::steady_clock::time_point deadline);
  // How the child ended, if it has (never blocks).
  std::optional<RunnerExit> poll_exit();
  int pid() const;
  void kill();
  std::string output() const;  // what the child (the kernel included) printed, capped at 64 KiB

 private:
  struct State;
  explicit RunnerProcess(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

// The runner executable beside this binary ($KFORGE_BIN_DIR overrides, for tests).
std::filesystem::path runner_executable();

// The environment kforge-run (and kforge-peak) get: thread counts, no keys, and the OpenMP build
// of OpenBLAS first on the library path when it is installed (see openmp_openblas_dir()).
// `passive_wait`, for a process that is never timed: OpenMP's workers sleep as soon as a region
// ends (OMP_WAIT_POLICY=passive, the user's spin settings dropped). After every check call the
// judge waits until each thread of the process sleeps, so their spin (4-8 ms of a core per call at
// two threads, libgomp's default) would only be waited out, and there is no time it could change.
// A timed process keeps the user's settings: spinning between the regions of one call is part of
// what a kernel's time is. When the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT, it gets
// GOMP_SPINCOUNT=kTimedSpinCount: workers still spin through any gap of under about a millisecond
// between the regions of a call, and stop spinning a tenth as long after its checks. (In the
// timing the process is stopped between its calls, so there the spin costs nothing.)
std::vector<std::string> runner_environment(int threads, bool passive_wait = false);

// libgomp's default is 300000 spins (about 7 ms here, waited out by the judge after each of the
// two calls of every pair until timed processes were stopped between their calls). Measured side by
// side on 2 cores (2026-12-05), 30000 made a ci-size pair of 12p_rmsnorm cost 3.1 ms instead of 18,
// and a cpu-size pair 13-17 ms less on three tasks, whose speedups stayed within their run-to-run
// spread (3.26-3.71x against 3.50-3.74x; 2.42-2.60x against 2.55-2.69x; 1.77-1.88x
// against 1.67-1.89x). At the ci size both sides' medians fell (the baseline's most: 0.37 to
// 0.20-0.30 ms), so the speedup fell: the partner is not slowed by it.
inline constexpr int kTimedSpinCount = 30000;
// "/usr/lib/x86_64-linux-gnu/openblas-openmp" when installed, else "".
std::string openmp_openblas_dir();

}  // namespace kforge::eval
