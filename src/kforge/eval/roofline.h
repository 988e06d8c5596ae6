#pragma once
// A run's rates against the machine's peaks: the roofline fraction; why a fraction above 100% is
// possible (a working set that the caches hold, a cost formula that counts more than the kernel
// does, peaks measured on a busy machine); and when a rate proves the peaks low, which marks the
// cached record stale so the next run re-measures it.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/machine.h"

namespace kforge::eval {

// The time the roofline allows `threads` threads for this much work: the longer of the compute
// time at the FMA peak and the memory time at the triad peak (0 for a side without a peak).
double roofline_seconds(double flops, double bytes, const MachineProfile& m, int threads);
// Fraction of the roofline reached: the time the roofline allows over the measured time.
double roofline_fraction(double flops, double bytes, double seconds, const MachineProfile& m,
                         int threads);

struct AchievedRates {
  std::string who;  // "the baseline", "the kernel"
  int threads = 1;
  double gflops = 0, gbps = 0;  // by the task's cost formula
  double footprint_bytes = 0;   // inputs and outputs: what has to fit for the caches to serve it
};

// A few words on why `fraction` (> 1) can be, "" at or below 1.
std::string roofline_note(double fraction, const AchievedRates& r, const MachineProfile& m);

// The stale mark `r` earns the peaks ({"reason", "metric", "rate"}), if it proves them low: more
// GFLOP/s than the FMA peak for its thread count, or more GB/s than the triad peak with a working
// set well beyond the caches; by a margin, and beyond any rate a quiet re-measurement already
// explained. Provisional peaks earn none (they are re-measured anyway).
std::optional<nlohmann::json> peak_evidence(const AchievedRates& r, const MachineProfile& m);
// Marks m's cached record stale when `r` is evidence against it. True when it did.
Result<bool> note_achieved_rates(const AchievedRates& r, const MachineProfile& m);

}  // namespace kforge::eval
