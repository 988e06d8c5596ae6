// kforge export RUN [NODE] [--out DIR] [--json]: any node's kernel, plan and outcome out of the
// store, by its number within the run as every command shows it (default: the run's best node). A
// search's nodes all live in the database; this is how a user takes one of them away.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/store/node_json.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

struct ExportOptions {
  std::string run;
  std::int64_t node = 0;  // its number within the run; 0: the best
  std::string out;
  bool json = false;
};

// node.json: the node as `kforge graph --json` shows it, with "node" kept for scripts that read it.
nlohmann::json describe(const store::NodeRecord& n, const store::NodeNumbers& numbers) {
  auto j = store::node_json(n, numbers);
  j["node"] = n.number;
  return j;
}

int run_export(const ExportOptions& o) {
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) throw UsageError(db.error().message);
  auto run = store::find_run(**db, o.run);
  if (!run) throw UsageError(run.error().message);
  if (!*run)
    throw UsageError(fmt::format("no run {} in {} (see `kforge sessions`)", o.run,
                                 store::store_path(core::state_dir()).string()));
  auto nodes = store::nodes_of_run(**db, o.run);
  if (!nodes) throw UsageError(nodes.error().message);
  const store::NodeNumbers numbers(*nodes);
  std::int64_t wanted = o.node;
  if (!wanted) {
    auto best = numbers.of((**run).best_node);
    if (!best)
      throw UsageError(fmt::format("run {} has no best node yet: name one (see `kforge graph {}`)",
                                   o.run, o.run));
    wanted = *best;
  }
  const store::NodeRecord* node = nullptr;
  for (const auto& n : *nodes)
    if (n.number == wanted) node = &n;
  if (!node)
    throw UsageError(
        nodes->empty()
            ? fmt::format("run {} has no node {}: it has no nodes yet", o.run, wanted)
            : fmt::format(
                  "run {} has no node {} (its nodes are numbered 1 to {}; see `kforge graph {}`)",
                  o.run, wanted, nodes->size(), o.run));
  if (node->source.empty())
    throw UsageError(fmt::format(
        "node {} of run {} has no kernel (it failed before one was written)", wanted, o.run));

  const std::filesystem::path dir =
      o.out.empty() ? std::filesystem::path(fmt::format("{}-node-{}", o.run, wanted))
                    : std::filesystem::path(o.out);
  auto info = describe(*node, numbers);
  for (const auto& [file, text] : {std::pair<const char*, std::string>{"kernel.cpp", node->source},
                                   {"plan.md", node->plan},
                                   {"node.json", info.dump(2) + "\n"}})
    if (!text.empty())
      if (auto st = core::write_atomic(dir / file, text); !st) throw UsageError(st.error().message);
  info["dir"] = dir.string();
  if (o.json)
    fmt::print("{}\n", info.dump(2));
  else
    fmt::print("node {} of run {} ({}) → {}\n", wanted, o.run,
               node->verdict.value_or("not evaluated"), (dir / "kernel.cpp").string());
  return 0;
}

}  // namespace

void add_export(CommandLine& cmd) {
  auto o = std::make_shared<ExportOptions>();
  cmd.bind("run", o->run);
  cmd.require("run");
  cmd.bind("node", o->node);
  cmd.bind("out-node", o->out);
  cmd.bind("json", o->json);
  cmd.on_run([o] { return run_export(*o); });
}

}  // namespace kforge::cli
