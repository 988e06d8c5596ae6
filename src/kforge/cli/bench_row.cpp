// A bench task's cells and progress line.
#include "kforge/cli/bench_row.h"

#include <fmt/format.h>

#include "kforge/cli/common.h"
#include "kforge/core/shorten.h"

namespace kforge::cli {

std::vector<std::string> bench_cells(const eval::SuiteTaskResult& r) {
  if (!r.evaluation) return {r.id, r.status, "", "", "", "", "", ""};
  const auto& e = *r.evaluation;
  if (!e.candidate)
    return {r.id, std::string(eval::verdict_name(e.verdict)), "", "", "", "", "", ""};
  return {r.id,
          std::string(eval::verdict_name(e.verdict)),
          format_ms(e.candidate->median_ms),
          fmt::format("{}–{}", format_ms(e.candidate->p10_ms), format_ms(e.candidate->p90_ms)),
          fmt::format("{:.1f}", e.gflops),
          fmt::format("{:.1f}", e.gbps),
          e.roofline > 0 ? format_percent(e.roofline) : "",
          !e.speedup       ? ""
          : e.machine_busy ? "busy"
                           : format_ratio(e.speedup->median)};
}

std::string bench_progress_line(const eval::SuiteTaskResult& r, int i, int n) {
  const auto cells = bench_cells(r);
  const std::string time = cells[2].empty() ? "" : cells[2] + " ms";
  std::string line =
      fmt::format("[{:>2}/{}] {:<48} {:<17} {:>13}  {}", i, n, cells[0], cells[1], time, cells[7]);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string reason_line(const std::string& reason) { return core::shorten(reason, 300, "…"); }

}  // namespace kforge::cli
