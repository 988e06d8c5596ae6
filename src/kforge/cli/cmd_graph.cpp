// kforge graph ID [--format json|dot|svg | --json] [--out FILE]: a run's nodes and edges, coloured
// by verdict, labelled with the strategy and the speedup, the path to the best node marked.
#include <fmt/format.h>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/modes/run_graph.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

struct GraphOptions {
  std::string id, format = "dot", out;
};

int run_graph(const GraphOptions& o) {
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) throw UsageError(db.error().message);
  auto run = store::find_run(**db, o.id);
  if (!run) throw UsageError(run.error().message);
  if (!*run) throw UsageError(fmt::format("no run {} (see `kforge sessions`)", o.id));
  auto nodes = store::nodes_of_run(**db, o.id);
  if (!nodes) throw UsageError(nodes.error().message);
  std::string text;
  if (o.format == "json") {
    text = modes::run_graph_json(**run, *nodes).dump(2) + "\n";
  } else {
    text = modes::run_graph_dot(**run, *nodes);
    if (o.format == "svg") {
      auto svg = modes::dot_to_svg(text);
      if (!svg) throw UsageError(svg.error().message);
      text = *svg;
    }
  }
  if (o.out.empty())
    fmt::print("{}", text);
  else if (auto st = core::write_atomic(o.out, text); !st)
    throw UsageError(st.error().message);
  return 0;
}

}  // namespace

void add_graph(CommandLine& cmd) {
  auto o = std::make_shared<GraphOptions>();
  cmd.bind("run-id", o->id);
  cmd.require("run-id");
  cmd.bind("format", o->format);
  // --json, as every command that prints results takes it: the same as --format json.
  cmd.bind_flag("json", [o] { o->format = "json"; });
  cmd.exclusive("json", "format");
  cmd.bind("out-file", o->out);
  cmd.on_run([o] { return run_graph(*o); });
}

}  // namespace kforge::cli
