#pragma once
// One flat, self-describing record per evaluated task: what `bench --csv` and the `rows` of
// `bench --json` hold, so results from different machines, commits and days can be put side by
// side by any tool (a spreadsheet, pandas, `kforge compare`) without knowing kforge's nested
// evaluation format. Every row names its schema, the kforge version and commit, the machine, the
// time, the size, the implementation and the thread count; a number that was not measured is
// empty (CSV) or null (JSON), never 0.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/machine.h"
#include "kforge/eval/suite_run.h"

namespace kforge::eval {

// /2: a busy row's speedup moved to busy_speedup* (speedup* are null: a busy speedup is never a
// published figure); partner_slowdown, quiet_wait_s and remeasured added.
inline constexpr const char* kResultRowSchema = "kforge.result_row/2";

struct RunStamp {                                  // what every row of one run shares
  std::string kforge_version, git_sha, timestamp;  // timestamp: ISO 8601, UTC
  std::string cpu_model, isa, openblas_core, openblas_coretype;
  int logical_cpus = 0;
  std::string impl;
  int threads = 0;
};

struct ResultRow {
  RunStamp stamp;
  std::string task, size, status, verdict, reason;  // status: evaluated | skipped: … | error: …
  bool busy = false;
  double load_average = 0;
  std::optional<int> samples;
  std::optional<double> median_ms, p10_ms, p90_ms, baseline_median_ms;
  std::optional<double> speedup, speedup_ci_low, speedup_ci_high;
  std::optional<double> busy_speedup, busy_speedup_ci_low,
      busy_speedup_ci_high;  // measured busy: kept, not published
  std::optional<double>
      partner_slowdown;     // the baseline's median over its quiet median on this machine
  double quiet_wait_s = 0;  // waited for a quiet machine before the timing
  int remeasured = 0;       // measured again because the machine was busy
  std::optional<double> gflops, gbps, roofline;
};

// The stamp of a run that starts now on `machine`.
RunStamp stamp_run(const MachineProfile& machine, const std::string& impl, int threads);
ResultRow make_row(const RunStamp& stamp, const SuiteTaskResult& result,
                   const std::string& requested_size);

nlohmann::json to_json(const ResultRow& row);
std::string csv_header();
std::string to_csv(const ResultRow& row);

}  // namespace kforge::eval
