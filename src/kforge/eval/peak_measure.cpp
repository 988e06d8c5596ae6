// The measuring loop: wait for quiet (bounded), run, stop once two quiet runs agree.
#include "kforge/eval/peak_measure.h"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::eval {

double& PeakRates::at(int i) {
  double* fields[4] = {&fma_gflops_1, &fma_gflops_all, &triad_gbps_1, &triad_gbps_all};
  return *fields[i];
}
double PeakRates::at(int i) const { return const_cast<PeakRates*>(this)->at(i); }

PeakRates peak_rates_from_json(const nlohmann::json& j) {
  PeakRates r;
  for (int i = 0; i < 4; ++i)
    if (auto it = j.find(PeakRates::kNames[i]); it != j.end() && it->is_number())
      r.at(i) = it->get<double>();
  return r;
}

nlohmann::json to_json(const PeakRates& r) {
  nlohmann::json j;
  for (int i = 0; i < 4; ++i) j[PeakRates::kNames[i]] = r.at(i);
  return j;
}

std::string implausible_peaks(const PeakRates& r, int cpus) {
  for (int i = 0; i < 4; ++i)
    if (r.at(i) <= 0) return fmt::format("{} is missing", PeakRates::kNames[i]);
  if (cpus <= 1) return "";
  // More CPUs never do fewer FMAs: at worst they share one core's units (SMT) and match one CPU,
  // so a tenth below is noise and more is load. Bandwidth is not held to this: two threads on a
  // VM's shared memory path can really move less than one.
  if (r.fma_gflops_all < 0.9 * r.fma_gflops_1)
    return fmt::format("FMA on all {} CPUs ({:.1f} GFLOP/s) below one CPU's ({:.1f})", cpus,
                       r.fma_gflops_all, r.fma_gflops_1);
  return "";
}

namespace {

// Whether the two best quiet runs agree within `tolerance` on every rate.
bool quiet_runs_agree(const std::vector<PeakRun>& runs, double tolerance) {
  for (int i = 0; i < 4; ++i) {
    std::vector<double> v;
    for (const auto& r : runs)
      if (!r.load.busy) v.push_back(r.rates.at(i));
    if (v.size() < 2) return false;
    std::sort(v.rbegin(), v.rend());
    if (v[0] <= 0 || (v[0] - v[1]) / v[0] > tolerance) return false;
  }
  return true;
}

bool busier(const LoadVerdict& a, const LoadVerdict& b) {
  return a.busy != b.busy ? a.busy : a.outside_running > b.outside_running || a.steal > b.steal;
}

LoadVerdict wait_for_quiet(const PeakMeasureIo& io, double wait_until) {
  auto load = io.probe();
  bool told = false;
  while (load.busy && io.now() < wait_until) {
    if (!told && io.progress)
      io.progress(
          fmt::format("the machine is busy ({}): waiting up to {:.0f} s for it to quieten before "
                      "measuring peaks (half of KFORGE_PEAK_BUDGET_S)",
                      load.reason, wait_until - io.now()));
    told = true;
    io.sleep(1.0);
    load = io.probe();
  }
  return load;
}

void summarize(PeakMeasurement& m, const PeakMeasureOptions& o) {
  for (int i = 0; i < 4; ++i) {
    double lo = m.runs.front().rates.at(i), hi = lo;
    for (const auto& r : m.runs) {
      lo = std::min(lo, r.rates.at(i));
      hi = std::max(hi, r.rates.at(i));
    }
    m.best.at(i) = hi;
    m.spread.at(i) = hi > 0 ? (hi - lo) / hi : 0;
  }
  std::vector<std::string> why;
  if (!quiet_runs_agree(m.runs, o.agree)) {
    if (m.quiet_runs < 2)
      why.push_back(fmt::format("the machine was busy ({})", m.worst_load.reason));
    else
      why.push_back(
          fmt::format("{} quiet runs did not agree within {:.0f}%", m.quiet_runs, 100 * o.agree));
  }
  if (auto bad = implausible_peaks(m.best, o.cpus); !bad.empty()) why.push_back(bad);
  m.provisional = !why.empty();
  for (const auto& w : why) m.provisional_reason += (m.provisional_reason.empty() ? "" : "; ") + w;
}

}  // namespace

Result<PeakMeasurement> measure_peaks(const PeakMeasureOptions& o, const PeakMeasureIo& io) {
  const double start = io.now(), end = start + o.budget_s,
               wait_until = start + o.wait_share * o.budget_s;
  PeakMeasurement m;
  double last_run_s = 0;
  while (static_cast<int>(m.runs.size()) < o.max_runs) {
    auto load = wait_for_quiet(io, wait_until);
    if (busier(load, m.worst_load)) m.worst_load = load;
    const double run_start = io.now();
    auto out = io.run_once();
    if (!out && m.runs.empty()) return out.error();
    if (!out) break;  // the runs so far stand; the failure shows as fewer runs
    last_run_s = io.now() - run_start;
    if (m.runs.empty()) m.details = *out;
    m.runs.push_back({peak_rates_from_json(*out), load});
    m.quiet_runs += !load.busy;
    if (io.progress) {
      const auto& r = m.runs.back().rates;
      io.progress(fmt::format(
          "peaks, run {}: FMA {:.1f} / {:.1f} GFLOP/s, triad {:.1f} / {:.1f} GB/s (1 CPU / all){}",
          m.runs.size(), r.fma_gflops_1, r.fma_gflops_all, r.triad_gbps_1, r.triad_gbps_all,
          load.busy ? ", machine busy" : ""));
    }
    if (quiet_runs_agree(m.runs, o.agree) || io.now() + last_run_s > end) break;
  }
  summarize(m, o);
  m.seconds = io.now() - start;
  return m;
}

}  // namespace kforge::eval
