// A search's run row and root node, through the run ledger.
#include "kforge/modes/search_session.h"

#include <fmt/format.h>

#include "kforge/core/hash.h"
#include "kforge/core/shorten.h"
#include "kforge/store/store.h"

namespace kforge::modes {

Status start_search_run(const SearchEnv& env, const SearchOptions& o, const std::string& task,
                        const std::string& size) {
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (!journal) return journal.error();
  auto& ledger = journal->ledger();
  if (auto st = ledger.start_run(
          {env.run_id, "search", task, size, store::RunState::running, o.to_json().dump()});
      !st)
    return st;
  store::NodeRecord root;
  root.run_id = env.run_id;
  root.strategy = "root";
  root.strategy_id = "root";
  root.source = o.start_source;
  root.source_hash = core::Hasher().add(o.start_source).hex();
  root.state = store::NodeState::done;
  if (!o.start_source.empty()) {
    eval::EvalOptions eo = env.eval;
    eo.time_budget_s = o.expansion.time_budget_s;
    record_evaluation(root,
                      env.target.evaluate(*env.ctx, o.start_source, env.target.kernel_file(), eo));
  }
  auto id = ledger.add_node(root);
  if (!id) return id.error();
  return ok_status();
}

Result<SearchOptions> prepare_resume(const std::filesystem::path& state_dir,
                                     const std::string& run_id, int jobs) {
  auto journal = RunJournal::open(state_dir, run_id);
  if (!journal) return journal.error();
  auto& ledger = journal->ledger();
  auto run = ledger.run(run_id);
  if (!run) return run.error();
  if (!*run)
    return Error{fmt::format("no run {} in {}", run_id, store::store_path(state_dir).string())};
  if ((*run)->mode != "search")
    return Error{fmt::format("run {} is a {} run, not a search", run_id, (*run)->mode)};
  auto options = SearchOptions::from_json(nlohmann::json::parse((*run)->options, nullptr, false));
  if (!options) return options.error();
  if (jobs > 0) options->jobs = jobs;
  // Nodes in flight when the search was killed: their expansions run again.
  if (auto marked = ledger.mark_interrupted(run_id); !marked) return marked.error();
  auto nodes = ledger.nodes(run_id);
  if (!nodes) return nodes.error();
  for (const auto& n : *nodes)
    if (n.depth == 0) options->start_source = n.source;
  if (auto st = ledger.update_run(run_id,
                                  [](store::RunRecord& r) { r.state = store::RunState::running; });
      !st)
    return st.error();
  return options;
}

Status finish_search_run(const SearchEnv& env, const SearchResult& r) {
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (!journal) return journal.error();
  std::vector<std::string> problems;
  if (auto st = journal->write("graph.json", to_json(r).dump(2)); !st)
    problems.push_back(st.error().message);
  if (auto st = journal->write("report.md", search_report(env, r)); !st)
    problems.push_back(st.error().message);
  if (r.best)
    for (const auto& n : r.nodes)
      if (n.id == *r.best)
        if (auto st = journal->write(env.target.best_file(), n.source); !st)
          problems.push_back(st.error().message);
  auto st = journal->ledger().update_run(env.run_id, [&](store::RunRecord& run) {
    run.state = r.state;
    run.stop_reason = r.stop_reason;
    run.best_node = r.best;
    run.search_state = nlohmann::json{{"beams", r.beams},
                                      {"expansions_run", r.expansions_run},
                                      {"expansions_replayed", r.expansions_replayed}}
                           .dump();
  });
  if (!st) problems.push_back(st.error().message);
  if (problems.empty()) return ok_status();
  std::string all;
  for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
  return Error{fmt::format("finishing search {}: {}", env.run_id, all)};
}

namespace {

std::string cell(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("–");
}

}  // namespace

std::string search_report(const SearchEnv& env, const SearchResult& r) {
  const std::string partner = env.target.target().baseline_name(env.eval);
  std::string s = fmt::format(
      "# kforge search: {} (size {})\n\nEvery kernel paired with {}, the partner aimed at. {}: "
      "{}. {} expansion(s) run, {} replayed from the store; {:.0f} s.\n\n",
      env.ctx->spec().id, env.ctx->task().size, partner, store::run_state_name(r.state),
      r.stop_reason, r.expansions_run, r.expansions_replayed, r.wall_s);
  s += "| node | parent | depth | strategy | verdict | time ms | speedup | roofline |\n"
       "|---|---|---|---|---|---|---|---|\n";
  // Nodes by their numbers within the run, as every command names them.
  const store::NodeNumbers numbers(r.nodes);
  const store::NodeRecord* best = nullptr;
  for (const auto& n : r.nodes) {
    if (r.best && n.id == *r.best) best = &n;
    std::string strategy = n.strategy_id.empty() ? n.strategy : n.strategy_id;
    for (auto& c : strategy)
      if (c == '\n' || c == '|') c = ' ';
    const auto parent = numbers.of(n.parent_id);
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", n.number,
                     parent ? std::to_string(*parent) : "–", n.depth,
                     core::shorten(strategy, 80, "…"), n.verdict.value_or("–"),
                     cell(n.median_ms, "{:.4g}"), cell(n.speedup, "{:.2f}x"),
                     n.roofline ? fmt::format("{:.0f}%", 100 * *n.roofline) : "–");
  }
  if (!best) return s + "\nNo correct kernel was found.\n";
  if (r.decided_by == kDecidedByCorrectness)
    return s + fmt::format(
                   "\n## Best kernel (node {})\n\nThe first correct kernel (decided by {}; no "
                   "speedup is quoted). `{}` in this folder.\n",
                   best->number, r.decided_by, env.target.best_file());
  return s + fmt::format(
                 "\n## Best kernel (node {})\n\n{} ms, {}; it won its side-by-side runs. `{}` "
                 "in this folder.\n",
                 best->number, cell(best->median_ms, "{:.4g}"),
                 best->speedup ? fmt::format("{:.2f}x {}", *best->speedup, partner)
                               : std::string("no speedup figure (timed on a busy machine, or "
                                             "not timed)"),
                 env.target.best_file());
}

}  // namespace kforge::modes
