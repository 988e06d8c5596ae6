#pragma once
// Measuring the machine's peaks so they can be trusted: one run of kforge-peak is a sample, taken
// only when the outside load leaves the CPUs free (waiting a bounded time for that); runs repeat
// until two quiet ones agree within a few percent, and the best of them is the peak. A machine
// that never quietens down within the budget yields the best seen, marked provisional with the
// load it had. Load only ever slows a run down, so the best of several is never too high.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/load_probe.h"

namespace kforge::eval {

struct PeakRates {
  double fma_gflops_1 = 0, fma_gflops_all = 0;  // f32 FMA throughput, one CPU and all
  double triad_gbps_1 = 0, triad_gbps_all = 0;  // STREAM triad bandwidth, one CPU and all

  static constexpr const char* kNames[4] = {"fma_gflops_1", "fma_gflops_all", "triad_gbps_1",
                                            "triad_gbps_all"};
  double& at(int i);
  double at(int i) const;
};
PeakRates peak_rates_from_json(const nlohmann::json& j);
nlohmann::json to_json(const PeakRates& r);
// Why these peaks cannot be right ("" when they can): a rate missing, or FMA on all CPUs
// together slower than on one.
std::string implausible_peaks(const PeakRates& r, int cpus);

struct PeakRun {
  PeakRates rates;
  LoadVerdict load;  // the outside load just before the run
};

struct PeakMeasurement {
  PeakRates best;    // per rate, the best of all runs
  PeakRates spread;  // per rate, (max − min) / max over all runs
  std::vector<PeakRun> runs;
  int quiet_runs = 0;
  bool provisional = false;  // no two quiet runs agreed within the budget
  std::string provisional_reason;
  LoadVerdict worst_load;  // the busiest moment seen
  nlohmann::json
      details;  // kforge-peak's other fields (ISA used, OpenBLAS core, …) from the best run
  double seconds = 0;
};

struct PeakMeasureOptions {
  double budget_s = 30;     // everything: waiting for quiet and the runs
  double wait_share = 0.5;  // of the budget, at most this much spent waiting for quiet
  double agree = 0.03;      // two quiet runs within 3% on every rate
  int max_runs = 8;
  int cpus = 1;  // all-CPU runs need the whole machine
};

// The side effects, so the loop can be tested with fakes.
struct PeakMeasureIo {
  std::function<Result<nlohmann::json>()> run_once;  // one kforge-peak run
  std::function<LoadVerdict()> probe;                // the outside load, sampled for a moment
  std::function<void(double)> sleep;
  std::function<double()> now;                     // monotonic seconds
  std::function<void(std::string_view)> progress;  // optional
};

Result<PeakMeasurement> measure_peaks(const PeakMeasureOptions& options, const PeakMeasureIo& io);

}  // namespace kforge::eval
