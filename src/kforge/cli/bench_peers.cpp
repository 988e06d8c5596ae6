// bench --peers: per task, one paired evaluation per peer; the table, the fastest peer, fast_p.
#include "kforge/cli/bench_peers.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "kforge/cli/bench_row.h"
#include "kforge/cli/colour.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/eval/fastest_peer.h"
#include "kforge/eval/peer_table.h"

namespace kforge::cli {
namespace {

std::vector<std::string> selected_ids(const eval::SuiteRunOptions& so) {
  std::vector<std::string> ids;
  for (const auto& dir : core::list_task_dirs(so.suite)) {
    auto id = dir.filename().string();
    if (so.tasks.empty() || std::find(so.tasks.begin(), so.tasks.end(), id) != so.tasks.end())
      ids.push_back(id);
  }
  return ids;
}

// A cell that needs no new measurement: the implementation has no source for the task, or it was
// found wrong against an earlier peer that was itself right (it is wrong whoever it is timed with).
bool settles_the_row(const eval::SuiteTaskResult& cell) {
  if (!cell.evaluation) return true;
  const auto& e = *cell.evaluation;
  return !e.correct() && !e.partner_failed;
}

std::string cell_text(const eval::SuiteTaskResult& c) {
  if (!c.evaluation) return c.status.substr(0, c.status.find(':'));
  const auto& e = *c.evaluation;
  if (e.partner_failed) return "peer error";
  if (!e.correct()) return std::string(eval::verdict_name(e.verdict));
  if (!e.speedup) return "";
  if (e.machine_busy) return "busy";
  return fmt::format("{} ({:.2f}–{:.2f})", format_ratio(e.speedup->median), e.speedup->ci_low,
                     e.speedup->ci_high);
}

std::string candidate_ms(const eval::PeerRow& row) {
  for (const auto& c : row.cells)
    if (c.evaluation && c.evaluation->candidate)
      return format_ms(c.evaluation->candidate->median_ms);
  return "";
}

eval::SuiteTaskResult measure(const PeersRun& run, toolchain::Compiler& compiler,
                              const std::string& id, const std::string& peer) {
  eval::SuiteRunOptions so = run.suite;
  apply_partner(peer, so.eval);
  auto cell = eval::rerun_task(so, compiler, id);
  std::vector<eval::SuiteTaskResult> one = {std::move(cell)};
  eval::remeasure_busy(one, run.retries, [&](const eval::SuiteTaskResult& r) {
    progress(fmt::format("{}: against {}: busy, measuring again", r.id, peer));
    return eval::rerun_task(so, compiler, r.id);
  });
  return std::move(one.front());
}

void print_table(const PeersRun& run, const std::vector<eval::PeerRow>& rows,
                 const eval::PeerSummary& s) {
  std::vector<std::string> header = {"task", "kforge ms"};
  std::vector<bool> right = {false, true};
  for (const auto& p : run.peers) {
    header.push_back("vs " + p);
    right.push_back(true);
  }
  header.push_back("fastest peer");
  right.push_back(false);
  Table t(header, right);
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.id, candidate_ms(row)};
    for (const auto& c : row.cells) cells.push_back(cell_text(c));
    cells.push_back(row.fastest ? run.peers[*row.fastest] : "");
    t.add(cells);
  }
  auto share = [](const std::optional<double>& v) { return v ? format_percent(*v) : "n/a"; };
  fmt::print("{}\n{}", run.header, t.render());
  fmt::print(
      "\nspeedup of the {} over each peer: median of paired ratios (95% CI); fastest peer: the one "
      "it gains least over\n",
      run.suite.impl);
  fmt::print(
      "{}; vs the fastest peer ({} judged): fast_1 {}, fast_1.5 {}, geomean {}; vs eager "
      "PyTorch: fast_1 {}, fast_1.5 {}{}{}\n",
      count_of(s.tasks, "task"), s.with_fastest, share(s.fast_1_fastest), share(s.fast_1_5_fastest),
      s.geomean_over_fastest ? format_ratio(*s.geomean_over_fastest) : "n/a", share(s.fast_1_eager),
      share(s.fast_1_5_eager),
      s.busy_cells ? fmt::format("; {} cells timed busy (no result)", s.busy_cells) : "",
      s.peer_errors ? fmt::format("; {} peer errors", s.peer_errors) : "");
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      const auto& c = row.cells[i];
      if (c.evaluation && !c.evaluation->correct())
        fmt::print("  {} vs {}: {}\n", row.id, run.peers[i], reason_line(c.evaluation->reason));
      else if (c.evaluation && c.evaluation->machine_busy)
        fmt::print("  {} vs {}: busy, no speedup: {}; run it again on a quiet machine\n", row.id,
                   run.peers[i], c.evaluation->busy_reason);
      else if (!c.evaluation && c.status != "evaluated")
        fmt::print("  {} vs {}: {}\n", row.id, run.peers[i], c.status);
    }
  // Compile times of the peers: excluded from every time above, reported here.
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.cells.size(); ++i)
      if (const auto& c = row.cells[i]; c.evaluation && !c.evaluation->partner_version.empty() &&
                                        c.evaluation->partner_compile_s > 1)
        fmt::print("  {} {}: compiled in {:.1f} s (untimed)\n", row.id, run.peers[i],
                   c.evaluation->partner_compile_s);
}

// The fastest peer of a row judged quietly, for --beat of auto and search.
void record(const eval::PeerRow& row, const std::vector<std::string>& peers,
            const eval::MachineProfile& machine) {
  const auto file = eval::fastest_peer_file(machine);
  if (!row.fastest || file.empty()) return;
  const auto& e = *row.cells[*row.fastest].evaluation;
  if (auto st = eval::record_fastest_peer(file, eval::fastest_peer_entry(row.id, e.size, e.threads),
                                          peers[*row.fastest], e.speedup->median);
      !st)
    fmt::print(stderr, "kforge: could not record the fastest peer: {}\n", st.error().message);
}

bool all_good(const std::vector<eval::PeerRow>& rows) {
  for (const auto& row : rows)
    for (const auto& c : row.cells)
      if (!c.evaluation || !c.evaluation->correct()) return false;
  return !rows.empty();
}

}  // namespace

int run_bench_peers(const PeersRun& run, const eval::MachineProfile& machine) {
  auto compiler = make_compiler();
  const auto ids = selected_ids(run.suite);
  const auto start = std::chrono::steady_clock::now();
  std::vector<eval::PeerRow> rows;
  int index = 0;
  for (const auto& id : ids) {
    ++index;
    eval::PeerRow row{id, {}, std::nullopt};
    for (const auto& peer : run.peers) {
      if (!row.cells.empty() && settles_the_row(row.cells.front())) {
        row.cells.push_back(row.cells.front());
        if (run.on_cell) run.on_cell(row.cells.back(), peer);
        continue;
      }
      progress(fmt::format("[{}/{}] {}: against {}", index, ids.size(), id, peer));
      row.cells.push_back(measure(run, *compiler, id, peer));
      if (run.on_cell) run.on_cell(row.cells.back(), peer);
      progress(fmt::format("[{}/{}] {}: against {}: {}", index, ids.size(), id, peer,
                           cell_text(row.cells.back())));
    }
    eval::find_fastest(row);
    record(row, run.peers, machine);
    rows.push_back(std::move(row));
  }
  const auto summary = eval::summarize_peers(rows, run.peers);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (run.json) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& row : rows) tasks.push_back(eval::to_json(row, run.peers));
    auto py = core::probe_python_env();
    fmt::print("{}\n", nlohmann::json{{"schema", "kforge.bench_peers/1"},
                                      {"machine", eval::to_json(machine)},
                                      {"threads", run.threads},
                                      {"impl", run.suite.impl},
                                      {"size", run.suite.size},
                                      {"peers", run.peers},
                                      {"versions",
                                       {{"python", py.python_version},
                                        {"torch", py.torch_version},
                                        {"jax", py.jax_version},
                                        {"numpy", py.numpy_version}}},
                                      {"tasks", tasks},
                                      {"summary", eval::to_json(summary)},
                                      {"seconds", seconds}}
                           .dump(2));
  } else {
    print_table(run, rows, summary);
    fmt::print("{:.0f} s\n", seconds);
  }
  return all_good(rows) ? 0 : 1;
}

}  // namespace kforge::cli
