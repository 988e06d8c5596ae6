// The fastest peer of each task and the summary over the suite.
#include "kforge/eval/peer_table.h"

#include <algorithm>
#include <cmath>

namespace kforge::eval {

bool judged(const SuiteTaskResult& cell) {
  return cell.evaluation && cell.evaluation->correct() && cell.evaluation->speedup &&
         !cell.evaluation->machine_busy;
}

bool peer_failed(const SuiteTaskResult& cell) {
  return cell.evaluation && cell.evaluation->partner_failed;
}

const SpeedupStats* PeerRow::over_fastest() const {
  if (!fastest) return nullptr;
  return &*cells[*fastest].evaluation->speedup;
}

void find_fastest(PeerRow& row) {
  row.fastest.reset();
  for (std::size_t i = 0; i < row.cells.size(); ++i) {
    if (!judged(row.cells[i])) continue;
    if (!row.fastest || row.cells[i].evaluation->speedup->median <
                            row.cells[*row.fastest].evaluation->speedup->median)
      row.fastest = i;
  }
}

PeerSummary summarize_peers(const std::vector<PeerRow>& rows,
                            const std::vector<std::string>& peers) {
  PeerSummary s;
  s.tasks = static_cast<int>(rows.size());
  const auto eager = std::find(peers.begin(), peers.end(), "torch");
  int f1 = 0, f15 = 0, eager_judged = 0, e1 = 0, e15 = 0;
  double log_sum = 0;
  for (const auto& row : rows) {
    for (const auto& cell : row.cells) {
      s.busy_cells += cell.busy();
      s.peer_errors += peer_failed(cell);
    }
    if (const SpeedupStats* over = row.over_fastest()) {
      ++s.with_fastest;
      f1 += over->median > 1.0;
      f15 += over->median > 1.5;
      log_sum += std::log(over->median);
    }
    if (eager != peers.end()) {
      const auto& cell = row.cells[static_cast<std::size_t>(eager - peers.begin())];
      if (judged(cell)) {
        ++eager_judged;
        e1 += cell.evaluation->speedup->median > 1.0;
        e15 += cell.evaluation->speedup->median > 1.5;
      }
    }
  }
  if (s.with_fastest) {
    s.fast_1_fastest = static_cast<double>(f1) / s.with_fastest;
    s.fast_1_5_fastest = static_cast<double>(f15) / s.with_fastest;
    s.geomean_over_fastest = std::exp(log_sum / s.with_fastest);
  }
  if (eager_judged) {
    s.fast_1_eager = static_cast<double>(e1) / eager_judged;
    s.fast_1_5_eager = static_cast<double>(e15) / eager_judged;
  }
  return s;
}

nlohmann::json to_json(const PeerRow& row, const std::vector<std::string>& peers) {
  nlohmann::json cells = nlohmann::json::object();
  for (std::size_t i = 0; i < row.cells.size() && i < peers.size(); ++i) {
    const auto& c = row.cells[i];
    nlohmann::json j = {{"status", c.status}, {"busy", c.busy()}, {"peer_failed", peer_failed(c)}};
    if (c.evaluation) {
      const auto& e = *c.evaluation;
      j["verdict"] = verdict_name(e.verdict);
      j["reason"] = e.reason;
      j["candidate_ms"] = e.candidate ? nlohmann::json(e.candidate->median_ms) : nullptr;
      j["peer_ms"] = e.baseline ? nlohmann::json(e.baseline->median_ms) : nullptr;
      // A busy cell's reading is no result: kept apart, as an evaluation's JSON keeps it.
      const bool earned = e.speedup && !e.machine_busy;
      j["speedup"] = earned ? nlohmann::json(e.speedup->median) : nullptr;
      j["speedup_ci95"] =
          earned ? nlohmann::json{e.speedup->ci_low, e.speedup->ci_high} : nlohmann::json();
      j["busy_speedup"] = e.speedup && e.machine_busy
                              ? nlohmann::json{{"median", e.speedup->median},
                                               {"ci95", {e.speedup->ci_low, e.speedup->ci_high}}}
                              : nlohmann::json();
      j["remeasured"] = c.remeasured;
      if (!e.partner_version.empty())
        j["peer"] = {{"version", e.partner_version},
                     {"compile_s", e.partner_compile_s},
                     {"warmup_s", e.partner_warmup_s},
                     {"copy_ms", e.partner_copy_ms}};
    }
    cells[peers[i]] = j;
  }
  return {{"task", row.id},
          {"fastest_peer", row.fastest ? nlohmann::json(peers[*row.fastest]) : nullptr},
          {"speedup_over_fastest",
           row.over_fastest() ? nlohmann::json(row.over_fastest()->median) : nullptr},
          {"peers", cells}};
}

nlohmann::json to_json(const PeerSummary& s) {
  auto or_null = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"tasks", s.tasks},
          {"with_fastest_peer", s.with_fastest},
          {"fast_1_vs_fastest_peer", or_null(s.fast_1_fastest)},
          {"fast_1.5_vs_fastest_peer", or_null(s.fast_1_5_fastest)},
          {"geomean_over_fastest_peer", or_null(s.geomean_over_fastest)},
          {"fast_1_vs_eager", or_null(s.fast_1_eager)},
          {"fast_1.5_vs_eager", or_null(s.fast_1_5_eager)},
          {"busy_cells", s.busy_cells},
          {"peer_errors", s.peer_errors}};
}

}  // namespace kforge::eval
