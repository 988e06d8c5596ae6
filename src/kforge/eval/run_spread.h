#pragma once
// What one run's interval does not say: how far the same pair moves between runs. Each run's 95%
// interval describes its own pairs; a second run (new processes, CPUs chosen afresh, new input
// seeds, new page placement) can land outside it. The same 9p kernel against XLA read 1.11x,
// 1.15x, 1.18x and 1.22x in four runs, each within ±1-2%. `kforge eval --runs N` times the pair
// N times and reports the runs' spread and an interval that holds across them.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/timing_stats.h"

namespace kforge::eval {

struct RunSpread {
  std::vector<SpeedupStats> runs;  // each timed run's ratio, in the order run
  double median = 0;               // the median of the runs' medians
  double low = 0, high = 0;        // the lowest and highest run median
  // The hull of every run's 95% interval: a figure inside it held in each run. Wider than any one
  // run's, and never narrower than the runs' own spread.
  double ci_low = 0, ci_high = 0;

  // Half the runs' range over their median: "±4%" between runs.
  double relative_half_range() const;
  // True when the runs' intervals do not all overlap: one run's interval alone would have misled.
  bool runs_disagree() const;
  std::string describe() const;  // "1.15x across 4 runs (1.11-1.22x; ±4.8%), holds in 1.09-1.24x"
};

// nullopt for fewer than two timed runs.
std::optional<RunSpread> run_spread(const std::vector<SpeedupStats>& runs);

void to_json(nlohmann::json& j, const RunSpread& s);

}  // namespace kforge::eval
