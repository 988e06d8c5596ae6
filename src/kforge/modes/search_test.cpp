// `kforge search` end to end with a scripted model whose kernels depend on the strategy it is
// asked for (fast, slow, wrong): a beam search builds the expected graph, never admits an invalid
// node and never overlaps two expansions' timing windows; a killed search resumes without
// repeating finished expansions. The algorithms' decisions are unit tests over a fake Expander
// (search_algorithms_test.cpp).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "kforge/modes/cli_test_util.h"
#include "kforge/store/store.h"
#include "kforge/targets/target.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class SearchTest : public CliScenario {
 protected:
  void SetUp() override {
    CliScenario::SetUp();
    ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml", rms::kThreeStrategies).ok());
    // The planner's strategy section carries a marker the coder's reply is chosen by.
    script(rms::three_strategy_script());
  }

  nlohmann::json search(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        "search",           "12p_rmsnorm", "--size",        "ci",
        "--model",          model(),       "--strategies",  (dir_ / "strategies.toml").string(),
        "--budget",         "0.2",         "--tune-budget", "0",
        "--debug-attempts", "0",           "--quiet",       "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run(args);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out << r.err;
    return j;
  }

  static std::map<long, nlohmann::json> by_id(const nlohmann::json& j) {
    std::map<long, nlohmann::json> m;
    for (const auto& n : j["nodes"]) m[n["id"].get<long>()] = n;
    return m;
  }
};

}  // namespace

TEST_F(SearchTest, BeamBuildsTheGraphAndAdmitsOnlyValidNodes) {
  // Two expansions in flight at once: their model calls and compiles overlap, their timing never
  // does.
  auto j = search({"--algorithm", "beam", "--beam-size", "1", "--branches", "2", "--depth", "2",
                   "--keep-factor", "100", "--seed", "3", "--jobs", "2"});
  ASSERT_TRUE(j.is_object());
  auto nodes = by_id(j);
  // Root, two children, then the beam's one node expanded with the two strategies left on its path.
  std::map<int, int> per_depth;
  for (const auto& [id, n] : nodes) per_depth[n["depth"].get<int>()]++;
  EXPECT_EQ(per_depth[0], 1);
  EXPECT_EQ(per_depth[1], 2);
  EXPECT_EQ(per_depth[2], 2);
  // No strategy repeats along a path.
  for (const auto& [id, n] : nodes) {
    if (n["depth"].get<int>() == 2) {
      EXPECT_NE(n["strategy"], nodes[n["parent"].get<long>()]["strategy"]);
    }
  }
  // Every beam holds only correct nodes.
  for (const auto& beam : j["beams"])
    for (const auto& id : beam) EXPECT_EQ(nodes[id.get<long>()]["verdict"], "correct") << id;
  // Each expansion's planner is told where the search stands; at depth 2 it grows the beam's
  // correct node, whose kernel, figures and source it sees: never "No correct kernel yet".
  const auto planners = prompts("planner");
  ASSERT_EQ(planners.size(), 4u);
  int grew_a_correct_node = 0;
  for (const auto& p : planners) {
    EXPECT_THAT(p, HasSubstr("Search: this expansion (beam/d"));
    if (p.find("into a node at depth 2 of at most 2") == std::string::npos) continue;
    ++grew_a_correct_node;
    EXPECT_THAT(p, HasSubstr("The kernel this expansion grows: node "));
    EXPECT_THAT(p, HasSubstr("95% interval"));
    EXPECT_THAT(p, HasSubstr("Its source:"));
    EXPECT_THAT(p, ::testing::Not(HasSubstr("No correct kernel yet")));
  }
  EXPECT_EQ(grew_a_correct_node, 2);
  // Wrong kernels exist in the graph but are never chosen. Every correct child was timed side by
  // side with its parent and with the search's best, and the best is the node that won: go_fast
  // (go_slow does the work forty times) unless a busy machine left a comparison undecided.
  bool saw_wrong = false, any_busy = false;
  for (const auto& [id, n] : nodes) {
    if (n["strategy"] == "go_wrong") {
      saw_wrong = true;
      EXPECT_NE(n["verdict"], "correct");
    }
    if (n["depth"].get<int>() > 0 && n["verdict"] == "correct") {
      ASSERT_TRUE(n["vs_parent"].is_object()) << n.dump(2);
      ASSERT_TRUE(n["vs_best"].is_object()) << n.dump(2);
      any_busy =
          any_busy || n["vs_parent"].value("busy", false) || n["vs_best"].value("busy", false);
    }
  }
  EXPECT_TRUE(saw_wrong)
      << "with three strategies and two branches per node, the wrong one is tried somewhere";
  ASSERT_FALSE(j["best"].is_null());
  const long fastest_id = j["best"].get<long>();
  EXPECT_EQ(nodes[fastest_id]["verdict"], "correct");
  EXPECT_EQ(nodes[fastest_id]["vs_best"]["winner"], "challenger") << nodes[fastest_id].dump(2);
  if (!any_busy) {
    EXPECT_EQ(nodes[fastest_id]["strategy"], "go_fast") << j.dump(2);
  }

  // Parallel expansions never overlap their timing windows (the machine lock is held across
  // threads).
  std::vector<std::pair<double, double>> windows;
  for (const auto& [id, n] : nodes)
    if (n["timing_window"].is_array())
      windows.emplace_back(n["timing_window"][0].get<double>(),
                           n["timing_window"][1].get<double>());
  ASSERT_GE(windows.size(), 2u);
  std::sort(windows.begin(), windows.end());
  for (std::size_t i = 1; i < windows.size(); ++i)
    EXPECT_LE(windows[i - 1].second, windows[i].first) << "timing windows overlap";

  // Every expansion's files in a folder of its own (they all used to overwrite iter-1/), and any
  // node's kernel comes out with `kforge export`.
  const std::string run_id = j["session"].get<std::string>();
  const auto session = dir_ / "state" / "sessions" / run_id;
  for (const auto& [id, n] : nodes) {
    if (n["depth"].get<int>() > 0) {
      EXPECT_TRUE(std::filesystem::exists(session / ("node-" + std::to_string(id)) / "kernel.cpp"))
          << id;
    }
  }
  auto exported = run({"export", run_id, "--out", (dir_ / "exported").string(), "--json"});
  ASSERT_TRUE(exported.success()) << exported.out << exported.err;
  EXPECT_EQ(nlohmann::json::parse(exported.out)["node"].get<long>(), fastest_id);
  auto kernel = core::read_text(dir_ / "exported" / "kernel.cpp");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(
      *kernel,
      core::read_text(session / ("node-" + std::to_string(fastest_id)) / "kernel.cpp").value());
  auto missing = run({"export", run_id, "999999"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("has no node 999999"));

  // The graph labels nodes by expansion and iteration (the database id only in small print), and
  // Graphviz accepts what it writes.
  auto graph = run({"graph", run_id, "--format", "json"});
  ASSERT_TRUE(graph.success()) << graph.err;
  auto graph_json = nlohmann::json::parse(
      graph.out);  // kept: a loop over a member of the temporary read freed memory
  for (const auto& n : graph_json["nodes"]) {
    if (n["depth"].get<int>() > 0) {
      EXPECT_THAT(n["label"].get<std::string>(),
                  ::testing::MatchesRegex("exp [0-9]+ · iter [0-9]+"))
          << n.dump();
    }
  }
  auto svg = run({"graph", run_id, "--format", "svg"});
  ASSERT_TRUE(svg.success()) << svg.err;
  EXPECT_THAT(svg.out, HasSubstr("exp 1 · iter 1"));

  // `kforge graph --json`, as every command that prints results takes it: --format json.
  auto graph_by_flag = run({"graph", run_id, "--json"});
  ASSERT_TRUE(graph_by_flag.success()) << graph_by_flag.err;
  EXPECT_EQ(graph_by_flag.out, graph.out);
  EXPECT_EQ(nlohmann::json::parse(graph_by_flag.out)["nodes"].size(), nodes.size());
  EXPECT_EQ(run({"graph", run_id, "--json", "--format", "dot"}).exit_code, 2);
}

TEST_F(SearchTest, KilledSearchResumesWithoutRepeatingFinishedExpansions) {
  // Start a search of three expansions and kill it once the first has finished.
  std::vector<std::string> args = parallel_search_argv();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    chdir(dir_.c_str());
    for (const auto& e : env()) putenv(strdup(e.c_str()));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::string run_id;
  auto finished_expansions = [&]() -> int {
    auto db = store::open_store(store::store_path(dir_ / "state"));
    if (!db) return 0;
    auto runs = store::list_runs(**db);
    if (!runs || runs->empty()) return 0;
    run_id = runs->front().id;
    auto nodes = store::nodes_of_run(**db, run_id);
    int n = 0;
    if (nodes)
      for (const auto& node : *nodes) n += node.expansion_result;
    return n;
  };
  for (int i = 0; i < 1200 && finished_expansions() < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_FALSE(run_id.empty());
  int before = finished_expansions();
  ASSERT_GE(before, 1);
  ASSERT_LT(before, 3) << "the search finished before it could be killed";

  // The killed run is shown as interrupted (its process is gone), not as running for ever.
  auto sessions = nlohmann::json::parse(run({"sessions", "--json"}).out, nullptr, false);
  ASSERT_TRUE(sessions.is_array());
  for (const auto& s : sessions) {
    if (s["session"] == run_id) {
      EXPECT_EQ(s["state"], "interrupted");
    }
  }

  auto r = run({"search", "--resume", run_id, "--json"});
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("resume with: kforge search --resume " + run_id));
  EXPECT_EQ(j["expansions_replayed"].get<int>(), before);
  EXPECT_EQ(j["expansions_run"].get<int>(), 3 - before);
  std::map<std::string, int> done;
  for (const auto& n : j["nodes"])
    if (n["state"] == "done" && !n["expansion"].get<std::string>().empty()) done[n["expansion"]]++;
  EXPECT_EQ(done.size(), 3u);
  for (const auto& [key, count] : done) EXPECT_EQ(count, 1) << key << " was expanded twice";
}

// Two searches into one store: the second's nodes are numbered from 1 in its progress lines, its
// closing lines, report.md, its folders, `kforge graph`, `kforge sessions` and `kforge export`,
// though their store ids continue from the first search's.
TEST_F(SearchTest, ASecondSearchNumbersItsNodesFromOne) {
  ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml", R"(replace = true
[[strategy]]
id = "go_fast"
family = "compute"
text = "STRATEGY-FAST: vectorize the reduction."
)")
                  .ok());
  const std::string start =
      std::string("#include \"kforge_task.h\"\n#include <cmath>\n") + rms::kSlow;
  ASSERT_TRUE(core::write_atomic(dir_ / "start.cpp", start).ok());
  auto first = search({"--algorithm", "parallel", "--width", "1"});
  ASSERT_EQ(first["nodes"].size(), 2u) << first.dump(2);

  // The second, with its progress lines, grown from a kernel of the user's (its root has one).
  std::vector<std::string> args = parallel_search_argv();
  args.erase(std::find(args.begin(), args.end(), "--quiet"));
  *(std::find(args.begin(), args.end(), "--width") + 1) = "1";
  args.insert(args.end(), {"--start", (dir_ / "start.cpp").string()});
  auto e = env();
  std::replace(e.begin(), e.end(), std::string("KFORGE_PROGRESS=0"),
               std::string("KFORGE_PROGRESS=1"));
  auto second =
      core::run_process(args, {.timeout = std::chrono::seconds(600), .cwd = dir_, .extra_env = e});
  ASSERT_TRUE(second.success()) << second.out << second.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(second.err, m, std::regex("run (\\S+) \\(resume with")))
      << second.err;
  const std::string run_id = m[1];
  ASSERT_NE(run_id, first["session"].get<std::string>());
  EXPECT_THAT(second.err, HasSubstr("expanding node 1 with go_fast")) << second.err;
  EXPECT_THAT(second.err, Not(HasSubstr("expanding node 3")));  // the root's store id
  EXPECT_THAT(second.out, HasSubstr("best: node 2,")) << second.out;
  const auto session = dir_ / "state" / "sessions" / run_id;
  EXPECT_TRUE(std::filesystem::exists(session / "node-2" / "kernel.cpp"));
  EXPECT_FALSE(std::filesystem::exists(session / "node-4"));
  auto report = core::read_text(session / "report.md");
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(*report, HasSubstr("| 1 | – | 0 | root |"));
  EXPECT_THAT(*report, HasSubstr("| 2 | 1 | 1 | go_fast |"));
  EXPECT_THAT(*report, HasSubstr("## Best kernel (node 2)"));

  // Node 1 is the second search's root: `kforge export RUN 1` gives the kernel it started from.
  auto root = run({"export", run_id, "1", "--out", (dir_ / "root").string(), "--json"});
  ASSERT_TRUE(root.success()) << root.out << root.err;
  auto root_json = nlohmann::json::parse(root.out);
  EXPECT_EQ(root_json["node"], 1);
  EXPECT_EQ(root_json["global_id"], 3);
  EXPECT_EQ(core::read_text(dir_ / "root" / "kernel.cpp").value(), start);
  // The best by default, into RUN-node-2.
  auto best = run({"export", run_id, "--json"});
  ASSERT_TRUE(best.success()) << best.out << best.err;
  EXPECT_EQ(nlohmann::json::parse(best.out)["node"], 2);
  EXPECT_EQ(nlohmann::json::parse(best.out)["parent"], 1);
  EXPECT_TRUE(std::filesystem::exists(dir_ / (run_id + "-node-2") / "kernel.cpp"));
  auto beyond = run({"export", run_id, "3"});  // the store has a node 3: not this run's
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_THAT(beyond.err, HasSubstr("has no node 3 (its nodes are numbered 1 to 2"));

  auto graph = nlohmann::json::parse(run({"graph", run_id, "--json"}).out);
  ASSERT_EQ(graph["nodes"].size(), 2u);
  EXPECT_EQ(graph["best"], 2);
  EXPECT_EQ(graph["nodes"][1]["id"], 2);
  EXPECT_EQ(graph["nodes"][1]["parent"], 1);
  EXPECT_EQ(graph["nodes"][1]["global_id"], 4);
  EXPECT_THAT(run({"graph", run_id}).out, HasSubstr("n1 -> n2"));
  auto sessions = nlohmann::json::parse(run({"sessions", "--json"}).out);
  bool listed = false;
  for (const auto& s : sessions)
    if (s["session"] == run_id) {
      listed = true;
      EXPECT_EQ(s["best_node"], 2);
    }
  EXPECT_TRUE(listed);
}

// A cuda search on a machine without a device is refused before the machine is profiled and before
// any model call, with the target's own reason.
TEST_F(SearchTest, CudaTargetWithoutADeviceIsRefusedBeforeAnyModelCall) {
  const auto* cuda = target::find_target("cuda");
  ASSERT_NE(cuda, nullptr);
  const std::string missing = cuda->unavailable_reason();
  if (missing.empty()) GTEST_SKIP() << "a CUDA device is present: the refusal cannot happen here";
  auto r = run({"search", "12p_rmsnorm", "--target", "cuda", "--size", "ci", "--model", model(),
                "--algorithm", "parallel", "--width", "1", "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("kforge search --target cuda: " + missing));
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log.jsonl"));  // no request reached the model
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"));
}

// The evolutionary search's reproducibility and the parallel search's distinct strategies are
// unit tests of the algorithms over a fake Expander (search_algorithms_test.cpp).

}  // namespace kforge::modes
