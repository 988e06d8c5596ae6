// A search's run row and root node, through the run ledger.
#include "kforge/modes/search_session.h"

#include <fmt/format.h>

#include "kforge/core/hash.h"
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

}  // namespace kforge::modes
