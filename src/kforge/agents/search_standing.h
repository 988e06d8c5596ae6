#pragma once
// Where a search stands, as the agents of one of its expansions are told: the node the expansion
// grows (its kernel, figures and hot spots), the path that led to it, the other expansions of that
// node (their strategies and results), the search's best so far, the node's depth and the budget
// left. Without it an expansion's planner read "No correct kernel yet" while growing a correct
// kernel, and chose blind. The search fills it (modes/expansion_context.h); the agents only read.

#include <optional>
#include <string>
#include <vector>

#include "kforge/eval/evaluation.h"

namespace kforge::agents {

// One node of the search graph.
struct SearchNode {
  std::string label;      // as the search's progress lines name it: "node 7"
  std::string strategy;   // the catalogue id that made it ("root", "crossover", ...)
  std::string plan_line;  // the first line of its plan's Strategy section ("" when none)
  bool correct = false;
  // Its evaluation as the search kept it (node-<id>/evaluation.json), with the speedup's interval
  // and the profile; absent when none was kept (then `result` says what the store has).
  std::optional<eval::Evaluation> evaluation;
  std::string result;     // one line from the store: verdict and figures, or why it failed
  std::string hot_spots;  // the profile's summary from the store, when there is no evaluation
  std::string vs_parent;  // side by side against its own parent (PairedDecision::describe)
};

struct SearchStanding {
  std::string expansion;             // the expansion's key
  SearchNode parent;                 // the node this expansion grows
  std::string parent_source;         // its kernel ("" for a root without one)
  std::vector<SearchNode> path;      // from the root down to the parent's parent
  std::vector<SearchNode> siblings;  // the parent's other children, finished, oldest first
  std::optional<SearchNode> best;    // the search's best when the expansion started
  bool best_is_parent = false;
  int depth = 0;             // the depth of the node this expansion makes (root = 0)
  int max_depth = 0;         // the search's deepest level (0: not fixed)
  int expansions_left = -1;  // in the whole search after this one, at most (-1: not known)
};

// One line of a node's figures: verdict, time, speedup against `partner` with its interval,
// roofline; or what the store says of it.
std::string search_node_line(const SearchNode& n, const std::string& partner);
// The search's budget: the depth of the node being made and the expansions left.
std::string describe_search_budget(const SearchStanding& s);
// The path to the parent and the parent's other children, each with its strategy and result.
std::string describe_search_history(const SearchStanding& s, const std::string& partner);

}  // namespace kforge::agents
