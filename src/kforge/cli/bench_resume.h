#pragma once
// `kforge bench --resume ID`: what a bench was run with, kept with its result set, and the
// settings a resume runs with: the set's own. An option left at its default takes the set's value;
// one given that differs from it is refused (rows measured otherwise would not belong together).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/store/results.h"

namespace kforge::cli {

struct BenchSettings {
  std::string suite;               // absolute
  std::vector<std::string> tasks;  // as selected (empty: every task of the suite)
  std::string impl;                // baseline | expert | reference | an absolute folder
  std::string size;                // "" = each task's default
  std::string target, dtype, partner;
  int threads = 0;                 // resolved (never 0 once kept)
  double budget = 0;               // seconds of paired timing per evaluation
  std::vector<std::string> peers;  // bench --peers: its table's peers (such a set is not resumed)
};

nlohmann::json to_json(const BenchSettings& s);
BenchSettings bench_settings_from_json(const nlohmann::json& j);

// The settings a resume of `set` runs with, from what was given (`given`, with `defaults` saying
// which options were left alone); an error names each option that differs and how to fix it. A
// set of another command, one still being written, or one measured on another host than `host`
// is refused too.
Result<BenchSettings> settings_for_resume(const BenchSettings& given, const BenchSettings& defaults,
                                          const store::ResultSet& set, const std::string& host);

// The tasks still to run: the selection (or `all_ids` when it was every task) less the tasks
// that have a row in the set.
std::vector<std::string> tasks_left(const BenchSettings& settings,
                                    const std::vector<std::string>& all_ids,
                                    const std::vector<store::KeptResult>& rows);

}  // namespace kforge::cli
