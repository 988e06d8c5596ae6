// Run rows and the root node.
#include "kforge/modes/search_session.h"

#include <fmt/format.h>

#include "kforge/core/hash.h"

namespace kforge::modes {

Status start_search_run(const SearchEnv& env, const SearchOptions& o, const std::string& task, const std::string& size) {
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (!journal) return journal.error();
  store::RunRecord run{env.run_id, "search", task, size, "running", o.to_json().dump()};
  if (auto st = store::insert_run(journal->db(), run); !st) return st;
  store::NodeRecord root;
  root.run_id = env.run_id;
  root.strategy = "root";
  root.source = o.start_source;
  root.source_hash = core::Hasher().add(o.start_source).hex();
  root.state = "done";
  root.extra = nlohmann::json{{"strategy_id", "root"}}.dump();
  if (!o.start_source.empty()) {
    eval::EvalOptions eo = env.eval;
    eo.time_budget_s = o.expansion.time_budget_s;
    auto e = eval::evaluate(*env.ctx, o.start_source, "kernel.cpp", eo);
    root.verdict = std::string(eval::verdict_name(e.verdict));
    root.reason = e.reason;
    if (e.candidate) root.median_ms = e.candidate->median_ms;
    if (e.speedup) root.speedup = e.speedup->median;
  }
  auto id = store::insert_node(journal->db(), root);
  if (!id) return id.error();
  return ok_status();
}

Result<SearchOptions> prepare_resume(const std::filesystem::path& state_dir, const std::string& run_id, int jobs) {
  auto journal = RunJournal::open(state_dir, run_id);
  if (!journal) return journal.error();
  auto run = store::find_run(journal->db(), run_id);
  if (!run) return run.error();
  if (!*run) return Error{fmt::format("no run {} in {}", run_id, store::store_path(state_dir).string())};
  if ((*run)->mode != "search") return Error{fmt::format("run {} is a {} run, not a search", run_id, (*run)->mode)};
  auto options = SearchOptions::from_json(nlohmann::json::parse((*run)->options, nullptr, false));
  if (!options) return options.error();
  if (jobs > 0) options->jobs = jobs;
  auto nodes = store::nodes_of_run(journal->db(), run_id);
  if (!nodes) return nodes.error();
  for (auto n : *nodes)
    if (n.state == "running") {  // in flight when the search was killed: it will be expanded again
      n.state = "interrupted";
      (void)store::update_node(journal->db(), n);
    }
  for (const auto& n : *nodes)
    if (n.depth == 0) options->start_source = n.source;
  (*run)->state = "running";
  (void)store::update_run(journal->db(), **run);
  return options;
}

Status finish_search_run(const SearchEnv& env, const SearchResult& r) {
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (!journal) return journal.error();
  (void)journal->write("graph.json", to_json(r).dump(2));
  if (r.best)
    for (const auto& n : r.nodes)
      if (n.id == *r.best) (void)journal->write("best.cpp", n.source);
  auto run = store::find_run(journal->db(), env.run_id);
  if (!run || !*run) return Error{"the run row disappeared"};
  (*run)->state = r.state;
  (*run)->stop_reason = r.stop_reason;
  (*run)->best_node = r.best;
  (*run)->search_state = nlohmann::json{{"beams", r.beams}, {"expansions_run", r.expansions_run}, {"expansions_replayed", r.expansions_replayed}}.dump();
  return store::update_run(journal->db(), **run);
}

}  // namespace kforge::modes
