// Drawing a run's graph: dot text built from the nodes, SVG through Graphviz.
#include "kforge/modes/run_graph.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "kforge/core/subprocess.h"
#include "kforge/store/node_json.h"

namespace kforge::modes {
namespace {

const char* fill_for(const store::NodeRecord& n) {
  if (n.depth == 0) return "#ffffff";
  if (n.state == store::NodeState::running) return "#fff3b0";
  if (n.state == store::NodeState::interrupted) return "#dddddd";
  if (!n.verdict) return "#eeeeee";
  const std::string& v = *n.verdict;
  if (v == "correct") return "#b7e4b0";
  if (v == "incorrect") return "#f4b6b6";
  if (v == "compile_error") return "#f9d49b";
  if (v == "timeout" || v == "runtime_error") return "#e6a0a0";
  return "#d9b8f0";  // link_refused, sandbox_violation, input_modified
}

// The strategy's id, else its text: cut to 40 characters for a picture's label only.
std::string strategy_of(const store::NodeRecord& n, std::size_t max_chars = std::string::npos) {
  return n.strategy_id.empty() ? n.strategy.substr(0, max_chars) : n.strategy_id;
}

std::string expansion_of(const store::NodeRecord& n) { return n.expansion; }

// What a reader calls a node: the iteration of an auto or hitl run ("iter 3"); in a search, the
// expansion, numbered in the order the search began them, and its iteration ("exp 2 · iter 1").
// The node's number within the run, which `kforge export RUN N` takes, follows in small print.
class NodeLabels {
 public:
  explicit NodeLabels(const std::vector<store::NodeRecord>& nodes) {
    for (const auto& n : nodes)  // ordered by id, so by creation
      if (auto key = expansion_of(n); !key.empty() && !ordinal_.count(key))
        ordinal_.emplace(key, static_cast<int>(ordinal_.size()) + 1);
  }
  std::string operator()(const store::NodeRecord& n) const {
    if (n.depth == 0) return "root";
    auto it = ordinal_.find(expansion_of(n));
    if (it == ordinal_.end()) return fmt::format("iter {}", n.iteration);
    return fmt::format("exp {} · iter {}", it->second, n.iteration);
  }

 private:
  std::map<std::string, int> ordinal_;
};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string run_graph_dot(const store::RunRecord& run,
                          const std::vector<store::NodeRecord>& nodes) {
  NodeLabels iteration_label(nodes);
  const store::NodeNumbers numbers(nodes);
  std::set<std::int64_t> best_path;
  std::map<std::int64_t, const store::NodeRecord*> by_id;
  for (const auto& n : nodes) by_id[n.id] = &n;
  for (auto cur = run.best_node; cur && by_id.count(*cur); cur = by_id[*cur]->parent_id)
    best_path.insert(*cur);
  std::string s = fmt::format(
      "digraph \"{}\" {{\n  label=\"{} {} ({}): {}\";\n  rankdir=TB;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n",
      run.id, run.mode, escape(run.task), run.size,
      escape(std::string(store::run_state_name(run.state))));
  for (const auto& n : nodes) {
    // An HTML-like label: the iteration in bold, the strategy, the outcome, the node's number in
    // small print. Graphviz names the node by that number too (the run page reads it back).
    std::string label = fmt::format("<<b>{}</b>", html_escape(iteration_label(n)));
    if (n.depth > 0) label += "<br/>" + html_escape(strategy_of(n, 40));
    label += "<br/>" +
             html_escape(n.verdict ? *n.verdict : std::string(store::node_state_name(n.state)));
    if (n.speedup) label += fmt::format(" {:.2f}x", *n.speedup);
    label += fmt::format("<br/><font point-size=\"8\">node {}</font>>", n.number);
    bool best = run.best_node && *run.best_node == n.id;
    s += fmt::format("  n{} [label={}, fillcolor=\"{}\"{}];\n", n.number, label, fill_for(n),
                     best ? ", peripheries=2, penwidth=2" : "");
  }
  for (const auto& n : nodes)
    if (auto parent = numbers.of(n.parent_id)) {
      bool on_path = best_path.count(n.id) && best_path.count(*n.parent_id);
      s += fmt::format("  n{} -> n{}{};\n", *parent, n.number,
                       on_path ? " [color=\"#1f5fbf\", penwidth=2.5]" : "");
    }
  return s + "}\n";
}

nlohmann::json run_graph_json(const store::RunRecord& run,
                              const std::vector<store::NodeRecord>& nodes) {
  const store::NodeNumbers numbers(nodes);
  const auto best = numbers.of(run.best_node);
  nlohmann::json j = {{"run", run.id},
                      {"mode", run.mode},
                      {"task", run.task},
                      {"state", store::run_state_name(run.state)},
                      {"best", best ? nlohmann::json(*best) : nlohmann::json(nullptr)},
                      {"nodes", nlohmann::json::array()}};
  NodeLabels iteration_label(nodes);
  for (const auto& n : nodes) {
    auto node = store::node_json(n, numbers);
    node["label"] = iteration_label(n);
    node["strategy"] = strategy_of(n);  // as the picture names it
    j["nodes"].push_back(std::move(node));
  }
  return j;
}

Result<std::string> dot_to_svg(const std::string& dot) {
  auto r =
      core::run_process({"dot", "-Tsvg"}, {.timeout = std::chrono::seconds(60), .stdin_data = dot});
  if (!r.success())
    return Error{"Graphviz's dot failed (" + r.describe() + "): " + r.err +
                 " — is graphviz installed?"};
  return r.out;
}

}  // namespace kforge::modes
