// An expansion as an auto run from the parent's kernel.
#include "kforge/modes/auto_expander.h"

#include <fmt/format.h>

#include "kforge/modes/expansion_context.h"

namespace kforge::modes {

ExpansionResult AutoExpander::expand(const Expansion& x, const store::NodeRecord& parent,
                                     const store::NodeRecord* partner) {
  if (auto b = setup_.env.agents->llm->check_budget(); !b)
    return {b.error().kind == llm::ErrorKind::cancelled ? store::RunState::interrupted
                                                        : store::RunState::stopped,
            b.error().message};
  AutoOptions ao = setup_.expansion;
  ao.start_source = parent.source;
  ao.parent_node = x.parent;
  ao.depth = parent.depth + 1;
  ao.expansion = ExpansionTag{x.key, x.strategy, std::nullopt};
  ao.search = search_standing(x, parent, setup_.env.journal->dir());
  if (x.strategy == "crossover" && partner) {
    // The second kernel in the target's own code fence (python for pallas, cuda for cuda).
    const std::string fence = setup_.env.target.target().agent_material().code_fence;
    ao.strategy =
        "Crossover: combine the ideas of the current kernel with those of a second kernel from "
        "another line of the search, "
        "keeping what makes each fast. The second kernel:\n```" +
        fence + "\n" + partner->source + "```";
    ao.coder_instruction =
        "Combine the current kernel with this second kernel, taking the better idea of "
        "each:\n```" +
        fence + "\n" + partner->source + "```";
    ao.expansion->partner = partner->id;
  } else {
    for (const auto& s : setup_.strategies)
      if (s.id == x.strategy) ao.strategy = s.text;
  }
  AutoEnv ae = setup_.env;
  ae.say = [&](std::string_view m) {
    if (setup_.env.say) setup_.env.say(fmt::format("[{}] {}", x.key, m));
  };
  auto r = run_auto(ae, ao);
  ExpansionResult out{r.state, r.stop_reason, std::move(r.nodes)};
  std::int64_t node =
      r.best_node ? *r.best_node : (r.iterations.empty() ? 0 : r.iterations.back().node);
  if (node) out.node = node;
  if (r.best) {
    out.best_source = r.best->source;
    out.best = r.best->evaluation;
  }
  return out;
}

eval::PairedDecision AutoExpander::compare(const std::string& challenger,
                                           const std::string& incumbent,
                                           const std::string& incumbent_label) {
  eval::EvalOptions eo = setup_.env.eval;
  eo.time_budget_s = setup_.expansion.time_budget_s;
  return setup_.env.target.decide_paired(*setup_.env.ctx, challenger, incumbent, incumbent_label,
                                         eo);
}

}  // namespace kforge::modes
