// A hitl session's versions ⇄ its run's nodes, and the migration of sessions whose versions lived
// in state.json only.
#include "kforge/modes/hitl_versions.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "kforge/core/hash.h"

namespace kforge::modes {
namespace {

const KernelVersion* find_version(const HitlState& state, int number) {
  for (const auto& v : state.versions)
    if (v.number == number) return &v;
  return nullptr;
}

// Versions only grow from earlier ones, so the walk ends; the bound guards a corrupt state.json.
int depth_of(const HitlState& state, const KernelVersion& v) {
  int depth = 0;
  for (const auto* at = &v; at->parent && depth <= static_cast<int>(state.versions.size());
       ++depth) {
    at = find_version(state, at->parent);
    if (!at) break;
  }
  return depth;
}

// What state.json knew of a version that had no node: the best's evaluation, or that it passed.
void carry_judgement(const HitlState& state, const KernelVersion& v, store::NodeRecord& n) {
  if (v.number == state.best_version && state.best) {
    record_evaluation(n, *state.best);
  } else if (v.number == state.passed_version) {
    n.verdict = std::string(eval::verdict_name(eval::Verdict::correct));
    n.reason = "passed the check (recorded before versions were nodes: no times kept)";
  }
}

Status ensure_run(const HitlState& state, RunLedger& ledger) {
  auto run = ledger.run(state.run_id);
  if (!run) return run.error();
  if (*run) return ok_status();
  return ledger.start_run(
      {state.run_id, "hitl", state.task, state.size, store::RunState::running, "{}"});
}

}  // namespace

store::NodeRecord version_node(const HitlState& state, const KernelVersion& v) {
  store::NodeRecord n;
  n.run_id = state.run_id;
  if (const auto* parent = find_version(state, v.parent); parent && parent->node)
    n.parent_id = parent->node;
  n.depth = depth_of(state, v);
  n.iteration = v.number;
  n.strategy = v.origin;
  n.plan = state.plan;
  n.source = v.source;
  n.source_hash = core::Hasher().add(v.source).hex();
  n.state = store::NodeState::done;  // a version is whole when made; the judge adds its verdict
  return n;
}

int implied_parent(const HitlState& state, const KernelVersion& v) {
  int reverted = 0;
  if (std::sscanf(v.origin.c_str(), "revert to v%d", &reverted) == 1 &&
      find_version(state, reverted))
    return reverted;
  int before = 0;
  for (const auto& other : state.versions)
    if (other.number < v.number && other.number > before) before = other.number;
  return before;
}

Result<int> restore_versions(HitlState& state, RunLedger& ledger) {
  auto context = [&](const Error& e) {
    return with_context(e, fmt::format("hitl session {}", state.run_id));
  };
  if (auto st = ensure_run(state, ledger); !st) return context(st.error());
  auto nodes = ledger.nodes(state.run_id);
  if (!nodes) return context(nodes.error());
  std::map<std::int64_t, const store::NodeRecord*> by_id;
  for (const auto& n : *nodes) by_id[n.id] = &n;
  int recorded = 0;
  for (auto& v : state.versions) {  // by number: a parent's node exists before its child's
    if (v.node) {
      auto it = by_id.find(v.node);
      if (it == by_id.end())
        return Error{fmt::format(
            "hitl session {}: state.json says v{} is the node of store id {}, which {} does not "
            "hold for this run",
            state.run_id, v.number, v.node, ledger.db().path().string())};
      v.source = it->second->source;
      continue;
    }
    const std::string hash = core::Hasher().add(v.source).hex();
    for (const auto& n : *nodes)
      if (n.iteration == v.number && n.source_hash == hash)
        v.node = n.id;  // recorded by an earlier open whose state.json was not written
    if (v.node) continue;
    auto n = version_node(state, v);
    carry_judgement(state, v, n);
    auto id = ledger.add_node(n);
    if (!id) return context(with_context(id.error(), fmt::format("recording v{}", v.number)));
    v.node = *id;
    ++recorded;
  }
  if (const auto* best = find_version(state, state.best_version); best && best->node)
    if (auto st = ledger.set_best(state.run_id, best->node); !st) return context(st.error());
  return recorded;
}

}  // namespace kforge::modes
