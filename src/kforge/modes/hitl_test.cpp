// `kforge hitl` end to end. Scripted (stdin not a terminal): plan → reject with a reason →
// revised plan → approve → implement → compile error → fix (diff shown, kept) → check → time →
// accept, asserting what was shown and written at each step. Interactive: a real terminal (tmux),
// with line editing (the history recalls a command) and $EDITOR.
#include <gmock/gmock.h>

#include <thread>

#include "kforge/modes/cli_test_util.h"
#include "kforge/target/target.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class HitlTest : public CliScenario {};

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
  EXPECT_TRUE(sessions[0]["best_speedup"].is_number()) << sessions.dump(2);
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

}  // namespace kforge::modes
