// `kforge hitl` end to end. Scripted (stdin not a terminal): plan → reject with a reason →
// revised plan → approve → implement → compile error → fix (diff shown, kept) → check → time →
// accept, asserting what was shown and written at each step. Interactive: a real terminal (tmux),
// with line editing (the history recalls a command) and $EDITOR. Each version is a node of the
// session's run (graph, sessions); a session saved before they were resumes with nothing lost.
#include <gmock/gmock.h>

#include <thread>

#include "kforge/modes/cli_test_util.h"
#include "kforge/targets/target.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class HitlTest : public CliScenario {
 protected:
  std::string only_session() const {
    std::string id;
    for (const auto& e : std::filesystem::directory_iterator(dir_ / "state" / "sessions"))
      id = e.path().filename().string();
    return id;
  }
  nlohmann::json graph(const std::string& id) {
    auto r = run({"graph", id, "--json"});
    EXPECT_TRUE(r.success()) << r.out << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
};

// The node of version `number` in `kforge graph --json`'s nodes (null when none).
nlohmann::json node_of_version(const nlohmann::json& graph, int number) {
  for (const auto& n : graph["nodes"])
    if (n["iteration"] == number) return n;
  return nullptr;
}

}  // namespace

TEST_F(HitlTest, ScriptedSessionFromPlanToAccept) {
  script({{"planner",
           {rms::plan("PLAN-ONE: rows in parallel"),
            rms::plan("PLAN-TWO: rows in parallel, scale applied")}},
          {"coder", {rms::block(rms::kBroken)}},
          {"debugger", {rms::fix(rms::kFast, "an undeclared name")}},
          {"profiler", {rms::kProfiled}}});
  std::string commands =
      "plan\nr the plan forgets the scale vector\na\nimplement\naccept "
      "early.cpp\ncompile\nfix\ny\ncheck\ntime\naccept out.cpp\n";
  auto r = run({"hitl", "12p_rmsnorm", "--size", "ci", "--model", model(), "--budget", "0.2",
                "--beat", "libtorch"},
               commands);
  ASSERT_TRUE(r.success()) << r.out << r.err;
  const std::string& out = r.out;

  // The plan was shown, rejected with the reason (which reached the planner), revised, approved.
  EXPECT_THAT(out, HasSubstr("PLAN-ONE"));
  EXPECT_THAT(out, HasSubstr("rejected; asking the planner again"));
  EXPECT_THAT(out, HasSubstr("PLAN-TWO"));
  EXPECT_THAT(out, HasSubstr("plan approved"));
  auto plans = prompts("planner");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_THAT(plans[1], HasSubstr("the plan forgets the scale vector"));
  // The coder's reply is shown once (as it streamed), not again after it.
  std::size_t shown = 0;
  for (auto at = out.find(rms::kBroken); at != std::string::npos;
       at = out.find(rms::kBroken, at + 1))
    ++shown;
  EXPECT_EQ(shown, 1u) << out;
  // The compile error with its source line; the debugger saw it; its fix was shown as a diff and
  // kept.
  EXPECT_THAT(out, HasSubstr("undeclared_thing"));
  EXPECT_THAT(out, HasSubstr("|   y[0] = undeclared_thing;"));
  auto debug = prompts("debugger");
  ASSERT_EQ(debug.size(), 1u);
  EXPECT_THAT(debug[0], HasSubstr("undeclared_thing"));
  EXPECT_THAT(out, HasSubstr("--- v1"));
  EXPECT_THAT(out, HasSubstr("+++ proposed"));
  EXPECT_THAT(out, HasSubstr("kept as v2"));
  // A kernel that has not passed the check is not accepted (the session went on).
  EXPECT_THAT(out, HasSubstr("v1 has not passed the check"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "early.cpp"));
  // The check's verdict, the timing with its spread and speedup, the accepted file.
  EXPECT_THAT(out, HasSubstr("verdict   correct"));
  EXPECT_THAT(out, HasSubstr("speedup"));
  EXPECT_THAT(out, HasSubstr("roofline"));
  EXPECT_THAT(out, HasSubstr("v2 written to out.cpp"));
  auto accepted = core::read_text(dir_ / "out.cpp");
  ASSERT_TRUE(accepted.ok());
  EXPECT_THAT(*accepted, HasSubstr("omp simd reduction"));

  // The session folder holds the state; --resume restores it exactly.
  std::string id;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state" / "sessions"))
    id = e.path().filename().string();
  auto state = core::read_text(dir_ / "state" / "sessions" / id / "state.json");
  ASSERT_TRUE(state.ok());
  auto j = nlohmann::json::parse(*state);
  EXPECT_EQ(j["versions"].size(), 2u);
  EXPECT_EQ(j["current"], 2);
  EXPECT_THAT(j["plan"].get<std::string>(), HasSubstr("PLAN-TWO"));
  EXPECT_EQ(j["partner"], "libtorch");  // --beat: kept with the session
  // Each version is a node of the run, named by state.json (which no longer carries sources): v2
  // grew from v1, v1 failed to compile, v2 was timed and is the run's best.
  auto g = graph(id);
  ASSERT_EQ(g["mode"], "hitl");
  ASSERT_EQ(g["nodes"].size(), 2u) << g.dump(2);
  auto v1 = node_of_version(g, 1), v2 = node_of_version(g, 2);
  ASSERT_TRUE(v1.is_object() && v2.is_object()) << g.dump(2);
  EXPECT_EQ(j["versions"][1]["node"], v2["global_id"]);  // the store id
  EXPECT_FALSE(j["versions"][1].contains("source"));
  EXPECT_EQ(v2["parent"], v1["id"]);
  EXPECT_EQ(v1["verdict"], "compile_error");
  EXPECT_EQ(v2["verdict"], "correct");
  EXPECT_TRUE(v2["median_ms"].is_number());
  EXPECT_THAT(v2["strategy"].get<std::string>(), HasSubstr("fix: an undeclared name"));
  EXPECT_GT(v2["tokens_in"].get<long>(), 0) << "the debugger's tokens belong to the fix";
  EXPECT_EQ(g["best"], v2["id"]);
  // Its baseline was measured against libtorch: a resume cannot change whom it is paired with.
  auto repaired = run({"hitl", "--resume", id, "--beat", "xla"}, "quit\n");
  EXPECT_EQ(repaired.exit_code, 2) << repaired.out << repaired.err;
  EXPECT_THAT(repaired.err, HasSubstr("is paired with libtorch"));
  auto resumed = run({"hitl", "--resume", id},
                     "status\nhistory\ncost\nquit\n");  // the session remembers its model
  ASSERT_TRUE(resumed.success()) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("kernel    v2 (fix: an undeclared name)"));
  EXPECT_THAT(resumed.out, HasSubstr("plan      approved"));
  EXPECT_THAT(resumed.out, HasSubstr("best      v2"));
  EXPECT_TRUE(prompts("planner").size() == 2u) << "resuming must not call a model";
  // kforge sessions shows the hitl session's best, as for auto and search runs.
  auto sessions = nlohmann::json::parse(run({"sessions", "--json"}).out, nullptr, false);
  ASSERT_TRUE(sessions.is_array() && !sessions.empty());
  // A best timed on a busy machine has no speedup to show (its reading is no result).
  const bool best_busy =
      j["best"].value("machine_load", nlohmann::json::object()).value("busy", false);
  EXPECT_EQ(sessions[0]["best_speedup"].is_number(), !best_busy) << sessions.dump(2);
  EXPECT_EQ(sessions[0]["tokens_estimated"], true) << "a cmd: model reports no usage";
  EXPECT_GT(sessions[0]["tokens"].get<long>(), 0);
  // The cost table's columns line up even with a long model name (a cmd: command line).
  std::istringstream lines(resumed.out);
  std::string header, planner_row;
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("role ", 0) == 0) header = l;
    if (l.rfind("planner ", 0) == 0) planner_row = l;
  }
  ASSERT_FALSE(header.empty() || planner_row.empty()) << resumed.out;
  const auto calls_end = header.find("calls") + 5;
  ASSERT_LE(calls_end, planner_row.size());
  EXPECT_EQ(planner_row[calls_end - 1], '2')
      << header << "\n"
      << planner_row;  // the planner's 2 calls, right-aligned under "calls"
  EXPECT_EQ(planner_row[calls_end - 2], ' ');
  EXPECT_THAT(planner_row, HasSubstr(" ~"));  // its tokens are marked as estimated
  EXPECT_THAT(resumed.out, HasSubstr("~ estimated"));
}

TEST_F(HitlTest, InteractiveTerminalWithLineEditingAndEditor) {
  if (core::run_process({"tmux", "-V"}).exit_code != 0) GTEST_SKIP() << "tmux is not installed";
  script({{"planner", {rms::plan("PLAN")}}, {"profiler", {rms::kProfiled}}});
  auto editor = dir_ / "editor.sh";
  ASSERT_TRUE(
      core::write_atomic(editor, "#!/bin/sh\nprintf '// written in the editor\\n' >> \"$1\"\n")
          .ok());
  std::filesystem::permissions(editor, std::filesystem::perms::owner_all);
  std::string session = "kforge-hitl-" + std::to_string(::getpid());
  std::string command;
  for (const auto& e : env()) command += e + " ";
  command += "EDITOR=" + editor.string() + " " + kforge() +
             " hitl 12p_rmsnorm --size ci --model '" + model() + "'; sleep 30";
  ASSERT_EQ(core::run_process({"tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
                               "-c", dir_.string(), command})
                .exit_code,
            0);
  auto screen = [&] {
    return core::run_process({"tmux", "capture-pane", "-p", "-S", "-200", "-t", session}).out;
  };
  auto wait_for = [&](const std::string& text) {
    for (int i = 0; i < 600; ++i) {
      if (screen().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  };
  auto keys = [&](std::vector<std::string> k) {
    std::vector<std::string> argv = {"tmux", "send-keys", "-t", session};
    argv.insert(argv.end(), k.begin(), k.end());
    core::run_process(argv);
  };
  ASSERT_TRUE(wait_for("Type `help`")) << screen();
  keys({"edit", "Enter"});
  EXPECT_TRUE(wait_for("saved as v1")) << screen();
  keys({"status", "Enter"});
  EXPECT_TRUE(wait_for("kernel    v1 (edit)")) << screen();
  // Line editing: the up arrow recalls `status`.
  keys({"Up", "Enter"});
  for (int i = 0; i < 100; ++i) {
    auto s = screen();
    std::size_t count = 0;
    for (std::size_t p = s.find("kernel    v1 (edit)"); p != std::string::npos;
         p = s.find("kernel    v1 (edit)", p + 1))
      ++count;
    if (count >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  auto s = screen();
  EXPECT_NE(s.find("kernel    v1 (edit)"), s.rfind("kernel    v1 (edit)"))
      << "the history did not recall the command:\n"
      << s;
  keys({"quit", "Enter"});
  EXPECT_TRUE(wait_for("resume with: kforge hitl --resume")) << screen();
  core::run_process({"tmux", "kill-session", "-t", session});
  std::string id;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state" / "sessions"))
    id = e.path().filename().string();
  auto kernel = core::read_text(dir_ / "state" / "sessions" / id / "versions" / "v1.cpp");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(*kernel, "// written in the editor\n");
}

// A later version takes the best's place only by beating it side by side in one run, as in auto
// and search; medians from different runs move with the machine's load and decide nothing.
TEST_F(HitlTest, AVersionBecomesTheBestOnlyByBeatingItSideBySide) {
  script({{"planner", {rms::plan("PLAN")}},
          {"coder", {rms::block(rms::kFast), rms::block(rms::kSlow)}}});
  auto r = run({"hitl", "12p_rmsnorm", "--size", "ci", "--model", model(), "--budget", "0.2"},
               "plan\na\nimplement\ntime\nimplement\ny\ntime\nquit\n");
  ASSERT_TRUE(r.success()) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("v1 is the best: the first version timed correct"));
  EXPECT_THAT(r.out, HasSubstr("timing v2 against the best (v1) side by side"));
  EXPECT_THAT(r.out, HasSubstr("v1 stays the best"));  // kSlow repeats the work 40 times
  auto state = core::read_text(dir_ / "state" / "sessions" / only_session() / "state.json");
  ASSERT_TRUE(state.ok());
  auto j = nlohmann::json::parse(*state);
  EXPECT_EQ(j["best_version"], 1);
  EXPECT_EQ(j["current"], 2);
}

// A cuda session on a machine without a device is refused before any model call.
TEST_F(HitlTest, CudaTargetWithoutADeviceIsRefusedBeforeAnyModelCall) {
  const auto* cuda = target::find_target("cuda");
  ASSERT_NE(cuda, nullptr);
  const std::string missing = cuda->unavailable_reason();
  if (missing.empty()) GTEST_SKIP() << "a CUDA device is present: the refusal cannot happen here";
  script({{"planner", {rms::plan("PLAN")}}});
  auto r = run({"hitl", "12p_rmsnorm", "--target", "cuda", "--size", "ci", "--model", model()},
               "plan\nquit\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("kforge hitl --target cuda: " + missing));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log.jsonl"));  // no request reached the model
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"));
}

TEST_F(HitlTest, ASessionSavedBeforeVersionsWereNodesResumesWithNothingLost) {
  script({{"planner", {rms::plan("PLAN")}}});
  auto started = run({"hitl", "12p_rmsnorm", "--size", "ci", "--model", model(), "--budget", "0.2",
                      "--beat", "libtorch"},
                     "quit\n");
  ASSERT_TRUE(started.success()) << started.out << started.err;
  const std::string id = only_session();
  // Its state.json replaced by one an older kforge wrote (tests/hitl/state-before-nodes.json:
  // four versions with their sources inline, v4 a revert to v2, v2 the best).
  auto old = core::read_text(core::source_dir() / "tests" / "hitl" / "state-before-nodes.json");
  ASSERT_TRUE(old.ok());
  auto j = nlohmann::json::parse(*old);
  j["run_id"] = id;
  j["model"] = model();
  const auto state_file = dir_ / "state" / "sessions" / id / "state.json";
  ASSERT_TRUE(core::write_atomic(state_file, j.dump(2)).ok());

  auto resumed = run({"hitl", "--resume", id}, "status\nhistory\nshow 3\nquit\n");
  ASSERT_TRUE(resumed.success()) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("recorded 4 version(s) of session " + id));
  EXPECT_THAT(resumed.out, HasSubstr("kernel    v4 (revert to v2)"));
  EXPECT_THAT(resumed.out, HasSubstr("best      v2: 0.0125 ms, 2.00x the baseline"));
  EXPECT_THAT(resumed.out, HasSubstr("v3: an edit that was slower"));  // its source, from its node
  auto g = graph(id);
  ASSERT_EQ(g["nodes"].size(), 4u) << g.dump(2);
  auto v2 = node_of_version(g, 2), v4 = node_of_version(g, 4);
  EXPECT_EQ(v4["parent"], v2["id"]);
  EXPECT_EQ(g["best"], v2["id"]);
  EXPECT_EQ(v2["median_ms"], 0.0125);
  // kforge export takes a version's kernel out of the store, the best by default.
  for (int v : {2, 3}) {
    auto out = dir_ / ("v" + std::to_string(v));
    std::vector<std::string> args = {"export", id, "--out", out.string()};
    if (v != 2)
      args.insert(args.begin() + 2, std::to_string(node_of_version(g, v)["id"].get<long>()));
    auto exported = run(args);
    ASSERT_TRUE(exported.success()) << exported.out << exported.err;
    auto kernel = core::read_text(out / "kernel.cpp");
    ASSERT_TRUE(kernel.ok());
    EXPECT_EQ(*kernel, j["versions"][v - 1]["source"].get<std::string>()) << "v" << v;
  }
  // The rewritten state.json names the nodes by their store ids (what a reader is shown are their
  // numbers within the run); a second resume records nothing again.
  auto rewritten = nlohmann::json::parse(*core::read_text(state_file));
  EXPECT_EQ(rewritten["versions"][3]["node"], v4["global_id"]);
  auto again = run({"hitl", "--resume", id}, "show 4\nquit\n");
  ASSERT_TRUE(again.success()) << again.out << again.err;
  EXPECT_THAT(again.out, Not(HasSubstr("recorded")));
  EXPECT_THAT(again.out, HasSubstr("v2: the fixed kernel"));
  EXPECT_EQ(graph(id)["nodes"].size(), 4u);
  // A revert copies the named version's kernel into a new one. The fifth version outgrows the
  // versions' storage: the copy was once read from the storage just given up (a moved-from,
  // freed string: versions/v5.cpp came out empty).
  auto reverted = run({"hitl", "--resume", id}, "revert 1\nquit\n");
  ASSERT_TRUE(reverted.success()) << reverted.out << reverted.err;
  EXPECT_THAT(reverted.out, HasSubstr("v5 is v1's kernel again"));
  auto v5 = core::read_text(dir_ / "state" / "sessions" / id / "versions" / "v5.cpp");
  ASSERT_TRUE(v5.ok());
  EXPECT_EQ(*v5, j["versions"][0]["source"].get<std::string>());
  auto v5_node = node_of_version(graph(id), 5);
  EXPECT_EQ(v5_node["parent"], node_of_version(graph(id), 1)["id"]);
  // kforge sessions quotes the best from the node now.
  auto sessions = nlohmann::json::parse(run({"sessions", "--json"}).out, nullptr, false);
  ASSERT_TRUE(sessions.is_array() && !sessions.empty());
  EXPECT_EQ(sessions[0]["nodes"], 5);
  EXPECT_EQ(sessions[0]["best_speedup"], 2.0);
}

}  // namespace kforge::modes
