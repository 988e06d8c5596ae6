// Rates against peaks: the fraction, its explanation, and the evidence that peaks are low.
#include "kforge/eval/roofline.h"

#include <fmt/format.h>

#include <algorithm>

#include "kforge/eval/peak_cache.h"

namespace kforge::eval {
namespace {

constexpr double kMargin = 1.05;  // 5% over a peak is more than timing noise
constexpr double kBeyondCaches =
    2.0;  // a working set this many times the caches streams from memory

}  // namespace

double roofline_seconds(double flops, double bytes, const MachineProfile& m, int threads) {
  const double t_compute =
      flops > 0 && m.peak_gflops(threads) > 0 ? flops / (m.peak_gflops(threads) * 1e9) : 0;
  const double t_memory =
      bytes > 0 && m.peak_gbps(threads) > 0 ? bytes / (m.peak_gbps(threads) * 1e9) : 0;
  return std::max(t_compute, t_memory);
}

double roofline_fraction(double flops, double bytes, double seconds, const MachineProfile& m,
                         int threads) {
  if (seconds <= 0) return 0;
  return roofline_seconds(flops, bytes, m, threads) / seconds;
}

std::string roofline_note(double fraction, const AchievedRates& r, const MachineProfile& m) {
  if (fraction <= 1.0) return "";
  if (m.provisional) return "provisional peaks, measured on a busy machine";
  const double compute = m.peak_gflops(r.threads) > 0 ? r.gflops / m.peak_gflops(r.threads) : 0;
  const double memory = m.peak_gbps(r.threads) > 0 ? r.gbps / m.peak_gbps(r.threads) : 0;
  if (memory >= compute) {
    if (r.footprint_bytes > 0 && r.footprint_bytes <= m.cache_bytes(r.threads))
      return "cache-resident working set";
    return "fewer bytes moved than the cost formula counts";
  }
  return "fewer operations than the cost formula counts";
}

std::optional<nlohmann::json> peak_evidence(const AchievedRates& r, const MachineProfile& m) {
  if (m.provisional) return std::nullopt;
  const int t = std::max(1, r.threads);
  // The FMA peak for t threads is the all-CPU peak, or t times one CPU's when that is lower.
  const bool per_cpu = t <= 1 || (t < m.logical_cpus && m.fma_gflops_1 * t < m.fma_gflops_all);
  const int fma = per_cpu ? 0 : 1;
  const double fma_rate = per_cpu ? r.gflops / t : r.gflops;
  if (m.peak_gflops(t) > 0 && r.gflops > kMargin * m.peak_gflops(t) &&
      fma_rate > kMargin * m.explained.at(fma))
    return nlohmann::json{
        {"reason",
         fmt::format("{} reached {:.1f} GFLOP/s on {} thread{}, above the FMA peak of {:.1f}",
                     r.who, r.gflops, t, t == 1 ? "" : "s", m.peak_gflops(t))},
        {"metric", PeakRates::kNames[fma]},
        {"rate", fma_rate}};
  const int triad = t <= 1 ? 2 : 3;
  if (m.peak_gbps(t) > 0 && r.gbps > kMargin * m.peak_gbps(t) &&
      r.gbps > kMargin * m.explained.at(triad) &&
      r.footprint_bytes > kBeyondCaches * m.cache_bytes(t))
    return nlohmann::json{{"reason", fmt::format("{} moved {:.1f} GB/s on {} thread{} with {:.0f} "
                                                 "MiB of data, above the triad peak of {:.1f}",
                                                 r.who, r.gbps, t, t == 1 ? "" : "s",
                                                 r.footprint_bytes / (1 << 20), m.peak_gbps(t))},
                          {"metric", PeakRates::kNames[triad]},
                          {"rate", r.gbps}};
  return std::nullopt;
}

Result<bool> note_achieved_rates(const AchievedRates& r, const MachineProfile& m) {
  if (m.peak_file.empty()) return false;
  auto evidence = peak_evidence(r, m);
  if (!evidence) return false;
  return mark_peaks_stale(m.peak_file, m.measured_unix, *evidence);
}

}  // namespace kforge::eval
