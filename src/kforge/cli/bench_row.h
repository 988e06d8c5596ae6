#pragma once
// One task of `kforge bench` as text: the table's cells and the progress line printed as each
// task ends. A row with no time has no unit either ("compile_error", not "compile_error  ms").

#include <string>
#include <vector>

#include "kforge/eval/suite_run.h"

namespace kforge::cli {

// task, verdict, median ms, p10–p90 ms, GFLOP/s, GB/s, roofline, speedup ("busy" for a busy row:
// its reading is no result); a cell that was not measured is empty.
std::vector<std::string> bench_cells(const eval::SuiteTaskResult& r);

// "[ 3/50] 12p_rmsnorm   correct   0.0123 ms  1.52x" for the i-th of n tasks.
std::string bench_progress_line(const eval::SuiteTaskResult& r, int i, int n);

// A failure's reason under the table, cut at a word's end with "…" when long.
std::string reason_line(const std::string& reason);

}  // namespace kforge::cli
