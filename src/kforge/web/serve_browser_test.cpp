// kforge serve in a real browser: headless Chromium driven through Debian's chromedriver
// (WebDriver over HTTP), against the real binary. Covers the sessions list (filter, best speedup,
// cost), a node's page with hostile text (a plan and a kernel carrying HTML and script: shown as
// text, never run), the graph growing live while a scripted search runs, a whole hitl session
// through the page (plan rejected with a reason, approved, implement, compile error, fix kept as
// a diff, check, time, the kernel edited in the page, accept) that the terminal then resumes, and
// the token a non-loopback bind asks for. Screenshots of each page go to build/screenshots/.
// Skipped, saying so, when Chromium or chromedriver is not installed.
#include <gmock/gmock.h>

#include "kforge/web/kept_results_test_util.h"
#include "kforge/web/web_test_util.h"

namespace kforge::web {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ServeBrowserTest : public ServeScenario {
 protected:
  void SetUp() override {
    ServeScenario::SetUp();
    if (!Browser::available())
      GTEST_SKIP() << "Chromium or chromedriver is missing: apt-get install chromium "
                      "chromium-driver (scripts/setup installs them)";
  }

  // Two finished runs written straight into the store: an auto run whose node carries hostile
  // text, and a search.
  void seed() {
    auto db = store::open_store(store::store_path(dir_ / "state"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto& d = **db;
    for (const auto* id : {"20260101-000000-aaaa", "20260101-000100-bbbb"})
      ASSERT_TRUE(store::insert_session(d, {id, "2026-01-01T00:00:00Z", "test", "/"}).ok());
    store::RunRecord a{"20260101-000000-aaaa", "auto", "12p_rmsnorm", "ci",
                       store::RunState::finished};
    store::RunRecord s{"20260101-000100-bbbb", "search", "8p_gemm", "ci",
                       store::RunState::finished};
    ASSERT_TRUE(store::insert_run(d, a).ok());
    ASSERT_TRUE(store::insert_run(d, s).ok());
    // The search's root first: the auto run's nodes then have store ids 2 and 3, and the page
    // names them 1 and 2, as every command does.
    store::NodeRecord search_root;
    search_root.run_id = s.id;
    search_root.strategy = "root";
    search_root.state = store::NodeState::done;
    ASSERT_TRUE(store::insert_node(d, search_root).ok());
    store::NodeRecord root;
    root.run_id = a.id;
    root.strategy = "root";
    root.state = store::NodeState::done;
    root.source = "extern \"C\" void kernel(const float* x, const float* scale, float* y) {}\n";
    auto root_id = store::insert_node(d, root);
    ASSERT_TRUE(root_id.ok());
    store::NodeRecord n;
    n.run_id = a.id;
    n.parent_id = *root_id;
    n.depth = 1;
    n.iteration = 1;
    n.strategy = "<b onmouseover=\"window.__xss=4\">bold</b>";
    n.plan = "## Plan\n<img src=x onerror=\"window.__xss=1\"> PLAN-HOSTILE";
    n.source =
        "// </pre><script>window.__xss=2</script>\n#include <cmath>\n"
        "extern \"C\" void kernel(const float* x, const float* scale, float* y) {\n"
        "  const char* s = \"<img src=y onerror=window.__xss=3>\";\n  y[0] = 1.5f;\n}\n";
    n.state = store::NodeState::done;
    n.verdict = "correct";
    n.reason = "all outputs within tolerance";
    n.median_ms = 0.5;
    n.baseline_ms = 0.75;
    n.speedup = 1.5;
    n.roofline = 0.25;
    n.decision = R"({"ratio": {"median": 1.5, "ci95": [1.42, 1.58]}, "winner": "candidate"})";
    n.diagnosis = "BOTTLENECK: <i>memory</i>";
    auto node_id = store::insert_node(d, n);
    ASSERT_TRUE(node_id.ok());
    a.best_node = *node_id;
    ASSERT_TRUE(store::update_run(d, a).ok());
    ASSERT_TRUE(store::insert_llm_call(d, {a.id, 1, "2026-01-01T00:00:01Z", "planner", "openai",
                                           "gpt-x", 1200, 300, 0, 0, 900, 0.0123})
                    .ok());
    ASSERT_EQ(*node_id, 3);
    node_ = 2;  // its number in the auto run
  }

  std::int64_t node_ = 0;  // the hostile node, by its number in its run
};

}  // namespace

TEST_F(ServeBrowserTest, SessionsListAndANodeWithHostileTextShownAsText) {
  seed();
  auto url = start_serve();
  ASSERT_FALSE(url.empty()) << serve_->output();
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(url);
  ASSERT_TRUE(b.wait("document.querySelectorAll('#sessions tr[data-session]').length === 2"))
      << b.eval("return document.body.innerText;").dump();
  EXPECT_EQ(b.text("tr[data-session='20260101-000000-aaaa'] .best"), "1.50x");
  EXPECT_THAT(b.text("tr[data-session='20260101-000000-aaaa']"), HasSubstr("$0.0123"));
  screenshot(b, "sessions");
  // The filter narrows the table as one types.
  ASSERT_TRUE(b.type("#filter", "search"));
  EXPECT_TRUE(b.wait("document.querySelectorAll('#sessions tr[data-session]').length === 1"));
  EXPECT_THAT(b.text("#sessions"), HasSubstr("8p_gemm"));

  // The run's page: its node, opened by a click on the graph. The event stream reports a change
  // on connecting; the page takes it in (graph.dataset.updates) without redrawing the unchanged
  // graph, so the node found is the node clicked (it was replaced under the pointer once, and the
  // click failed as a stale element under load).
  b.go(url + "#/run/20260101-000000-aaaa");
  ASSERT_TRUE(b.wait("document.querySelector('#graph svg g.node')"))
      << b.eval("return document.body.innerText;").dump();
  b.eval("document.querySelector('#graph svg').dataset.first = '1'; return 0;");
  ASSERT_TRUE(b.wait("Number(document.getElementById('graph').dataset.updates) >= 1"));
  EXPECT_TRUE(
      b.eval("return document.querySelector('#graph svg').dataset.first === '1';").get<bool>())
      << "the unchanged graph was redrawn";
  ASSERT_TRUE(b.click("#graph g.node[data-node='" + std::to_string(node_) + "'] text"));
  ASSERT_TRUE(b.wait("document.querySelector('#node-detail pre.plan')"));
  // Every hostile string is there as text, and none of it ran or became an element.
  EXPECT_THAT(b.text("#node-detail pre.plan"), HasSubstr("<img src=x onerror=\"window.__xss=1\">"));
  EXPECT_THAT(b.text("#node-detail pre.code"), HasSubstr("</pre><script>window.__xss=2</script>"));
  EXPECT_THAT(b.text("#node-detail"), HasSubstr("<b onmouseover"));
  EXPECT_TRUE(b.eval("return window.__xss === undefined && "
                     "document.querySelectorAll('#main img, #main script, #main b[onmouseover]')"
                     ".length === 0;")
                  .get<bool>());
  // The kernel is highlighted (keywords, strings, comments as spans), the diff coloured, the
  // evaluation shows the interval, the model call its tokens and cost.
  EXPECT_GT(b.eval("return document.querySelectorAll('#node-detail pre.code span.kw').length;")
                .get<int>(),
            0);
  EXPECT_EQ(b.text("#node-detail pre.code span.com"), "// </pre><script>window.__xss=2</script>");
  EXPECT_TRUE(
      b.eval("return document.querySelector('#node-detail pre.diff .add') !== null;").get<bool>());
  EXPECT_THAT(b.text("#evaluation"), HasSubstr("1.50x [1.420, 1.580]"));
  EXPECT_THAT(b.text("#evaluation"), HasSubstr("25.0%"));
  EXPECT_THAT(b.text("#call-table"), HasSubstr("1200"));
  EXPECT_THAT(b.text("#calls"), HasSubstr("$0.0123"));
  screenshot(b, "node");
}

TEST_F(ServeBrowserTest, TheGraphGrowsLiveWhileASearchRuns) {
  ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml", modes::rms::kThreeStrategies).ok());
  // Each reply takes a while, as a real model's would: the graph grows in visible steps.
  auto replies = modes::rms::three_strategy_script();
  replies["latency_s"] = 0.7;
  script(replies);
  auto url = start_serve();
  ASSERT_FALSE(url.empty()) << serve_->output();
  BackgroundProcess search(parallel_search_argv(), dir_, env(), dir_ / "search.log");
  // The run's id, as soon as the search has written its run.
  std::string run_id;
  for (int i = 0; i < 600 && run_id.empty(); ++i) {
    auto list = nlohmann::json::parse(curl("/api/sessions").second, nullptr, false);
    if (list.is_array() && !list.empty())
      run_id = list[0]["session"].get<std::string>();
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(run_id.empty()) << search.output();
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(url + "#/run/" + run_id);
  ASSERT_TRUE(b.wait("document.querySelector('#graph svg')"));
  b.eval("window.__sameDocument = true; return 0;");
  int first = b.eval("return document.querySelectorAll('#graph g.node').length;").get<int>();
  // The page is not reloaded: the server's events make it redraw as nodes are added and judged.
  EXPECT_TRUE(
      b.wait("document.querySelectorAll('#graph g.node').length >= " + std::to_string(first + 2),
             std::chrono::seconds(240)))
      << first << " " << search.output();
  screenshot(b, "search-growing");
  for (int i = 0; i < 2400 && !search.ended(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(search.ended()) << search.output();
  EXPECT_TRUE(b.wait("document.getElementById('run-state').textContent === 'finished'",
                     std::chrono::seconds(20)))
      << b.text("#run-summary");
  EXPECT_TRUE(b.eval("return window.__sameDocument === true;").get<bool>());
  EXPECT_EQ(b.eval("return document.querySelectorAll('#graph g.node').length;").get<int>(), 4);
  // Coloured by verdict (a correct node's green and the wrong kernel's red), the best path
  // marked in blue, speedups in the labels (of the nodes timed quietly: a busy reading is no
  // result, and under a parallel test run every timing may be busy).
  auto svg = b.eval("return document.querySelector('#graph svg').outerHTML;").get<std::string>();
  EXPECT_THAT(svg, HasSubstr("#b7e4b0"));
  EXPECT_THAT(svg, HasSubstr("#f4b6b6"));
  EXPECT_THAT(svg, HasSubstr("#1f5fbf"));
  auto view = nlohmann::json::parse(curl("/api/runs/" + run_id).second);
  bool quiet_speedup = false;
  for (const auto& n : view["nodes"]) quiet_speedup = quiet_speedup || n["speedup"].is_number();
  EXPECT_EQ(svg.find("x</text>") != std::string::npos, quiet_speedup) << view.dump(2);
  // The run ended: its event stream said so and the page closed it.
  EXPECT_TRUE(b.wait("document.getElementById('graph').dataset.ended === '1'"));
  // A click on a node opens it.
  auto best = view["run"]["best_node"];
  ASSERT_TRUE(best.is_number()) << "the search found no best node";
  ASSERT_TRUE(b.click("#graph g.node[data-node='" + std::to_string(best.get<long>()) + "'] text"));
  EXPECT_TRUE(
      b.wait("document.querySelector('#node-detail pre.code') && "
             "document.querySelector('#node-detail').textContent.includes('omp simd')"));
  screenshot(b, "search-finished");
}

TEST_F(ServeBrowserTest, AWholeHitlSessionThroughThePageThenResumedInTheTerminal) {
  script({{"planner",
           {modes::rms::plan("PLAN-ONE: rows in parallel"),
            modes::rms::plan("PLAN-TWO: rows in parallel, scale applied")}},
          {"coder", {modes::rms::block(modes::rms::kBroken)}},
          {"debugger", {modes::rms::fix(modes::rms::kFast, "an undeclared name")}},
          {"profiler", {modes::rms::kProfiled}}});
  auto url = start_serve({"--model", model(), "--budget", "0.2"});
  ASSERT_FALSE(url.empty()) << serve_->output();
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(url);
  ASSERT_TRUE(b.wait("document.getElementById('hitl-start')"));
  ASSERT_TRUE(b.type("#hitl-task", "12p_rmsnorm"));
  ASSERT_TRUE(b.type("#hitl-size", "ci"));
  ASSERT_TRUE(b.click("#hitl-start"));
  ASSERT_TRUE(b.wait("location.hash.startsWith('#/hitl/') && document.getElementById('commands')",
                     std::chrono::seconds(120)))
      << b.eval("return document.body.innerText;").dump() << serve_->output();
  std::string id = b.eval("return location.hash.slice(7);").get<std::string>();
  auto idle = [&](int seconds = 120) {
    return b.wait("document.getElementById('main').dataset.busy === '0'",
                  std::chrono::seconds(seconds));
  };
  // How often the transcript shows `c` typed at the prompt.
  auto echoed = [&](const std::string& c) {
    return b
        .eval("return document.getElementById('transcript').textContent.split(" +
              nlohmann::json("> " + c + "\n").dump() + ").length - 1;")
        .get<int>();
  };
  // A click on a command's button; returns once the session has taken it up.
  auto command = [&](const std::string& c) {
    EXPECT_TRUE(idle()) << b.text("#transcript");
    int before = echoed(c);
    EXPECT_TRUE(b.click("button[data-command='" + c + "']")) << c;
    EXPECT_TRUE(b.wait("document.getElementById('transcript').textContent.split(" +
                       nlohmann::json("> " + c + "\n").dump() + ").length - 1 > " +
                       std::to_string(before)))
        << c;
  };
  auto transcript_has = [&](const std::string& text) {
    return b.wait("document.getElementById('transcript').textContent.includes(" +
                      nlohmann::json(text).dump() + ")",
                  std::chrono::seconds(120));
  };

  // A plan, rejected with a reason, revised, approved.
  command("plan");
  ASSERT_TRUE(b.wait("document.getElementById('reject')", std::chrono::seconds(60)))
      << b.text("#transcript");
  EXPECT_TRUE(transcript_has("PLAN-ONE"));
  screenshot(b, "hitl-plan");
  ASSERT_TRUE(b.type("#reject-reason", "the plan forgets the scale vector"));
  ASSERT_TRUE(b.click("#reject"));
  ASSERT_TRUE(transcript_has("PLAN-TWO")) << b.text("#transcript");
  ASSERT_TRUE(b.wait("document.getElementById('approve')"));
  ASSERT_TRUE(b.click("#approve"));
  ASSERT_TRUE(transcript_has("plan approved")) << b.text("#transcript");
  auto plans = prompts("planner");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_THAT(plans[1], HasSubstr("the plan forgets the scale vector"));

  // implement → compile error → fix, shown as a diff, kept.
  command("implement");
  ASSERT_TRUE(transcript_has("v1 written"));
  command("compile");
  ASSERT_TRUE(transcript_has("undeclared_thing"));
  command("fix");
  ASSERT_TRUE(b.wait("document.getElementById('keep')", std::chrono::seconds(60)))
      << b.text("#transcript");
  EXPECT_TRUE(b.eval("return [...document.querySelectorAll('#transcript .add')]"
                     ".some(e => e.textContent.includes('omp simd'));")
                  .get<bool>());
  screenshot(b, "hitl-proposed-change");
  // Another page (here: a second client) cannot answer the question this page answers.
  auto gate = nlohmann::json::parse(curl("/api/hitl/" + id).second)["gate"]["id"];
  ASSERT_TRUE(gate.is_number());
  ASSERT_TRUE(b.click("#keep"));
  ASSERT_TRUE(transcript_has("kept as v2"));
  auto late = post("/api/hitl/" + id + "/answer", {{"gate", gate}, {"text", "n"}});
  EXPECT_EQ(late.first, 409) << late.second;

  command("check");
  ASSERT_TRUE(transcript_has("verdict   correct")) << b.text("#transcript");
  command("time");
  ASSERT_TRUE(transcript_has("speedup")) << b.text("#transcript");

  // The kernel edited in the page.
  command("edit");
  ASSERT_TRUE(b.wait("document.getElementById('editor')"));
  b.eval(
      "const a = document.getElementById('editor'); a.value += '// edited in the page\\n';"
      "return 0;");
  ASSERT_TRUE(b.click("#editor-save"));
  ASSERT_TRUE(transcript_has("saved as v3"));
  EXPECT_TRUE(
      b.wait("document.getElementById('hitl-kernel').textContent.includes('edited in the "
             "page')"));
  command("check");
  ASSERT_TRUE(idle());
  screenshot(b, "hitl-edited");

  // Accept, typed as a command line.
  ASSERT_TRUE(idle());
  ASSERT_TRUE(b.type("#command-line", "accept out.cpp"));
  ASSERT_TRUE(b.click("#command-send"));
  ASSERT_TRUE(transcript_has("v3 written to out.cpp")) << b.text("#transcript");
  ASSERT_TRUE(b.wait("document.getElementById('main').dataset.ended === '1'"));
  // Every line once, however many events raced (the page reads one snapshot at a time).
  EXPECT_EQ(echoed("check"), 2) << b.text("#transcript");
  auto accepted = core::read_text(dir_ / "out.cpp");
  ASSERT_TRUE(accepted.ok());
  EXPECT_THAT(*accepted, HasSubstr("omp simd reduction"));
  EXPECT_THAT(*accepted, HasSubstr("// edited in the page"));

  // The terminal resumes the same session where the page left it.
  auto resumed = run({"hitl", "--resume", id}, "status\nquit\n");
  ASSERT_TRUE(resumed.success()) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("kernel    v3 (edit)"));
  EXPECT_THAT(resumed.out, HasSubstr("plan      approved"));
  // And the page resumes it again after the terminal.
  b.go(url);
  ASSERT_TRUE(b.wait("document.querySelector(\"tr[data-session='" + id + "'] button.resume\")"));
  ASSERT_TRUE(b.click("tr[data-session='" + id + "'] button.resume"));
  ASSERT_TRUE(
      b.wait("document.getElementById('hitl-summary') && "
             "document.getElementById('hitl-summary').textContent.includes('v3 (edit)')",
             std::chrono::seconds(60)))
      << b.eval("return document.body.innerText;").dump();
  EXPECT_TRUE(prompts("planner").size() == 2u) << "resuming must not call a model";
}

TEST_F(ServeBrowserTest, AnAutoRunStartedFromThePageShowsProgressAndStopsLikeCtrlC) {
  script({{"latency_s", 1.0},
          {"planner", {modes::rms::plan("PLAN")}},
          {"coder", {modes::rms::block(modes::rms::kSlow)}},
          {"profiler", {modes::rms::kProfiled}}});
  auto url = start_serve();
  ASSERT_FALSE(url.empty()) << serve_->output();
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(url);
  ASSERT_TRUE(b.wait("document.getElementById('launch-start')"));
  ASSERT_TRUE(b.type("#launch-task", "12p_rmsnorm"));
  ASSERT_TRUE(b.type("#launch-size", "ci"));
  ASSERT_TRUE(b.type("#launch-model", model()));
  ASSERT_TRUE(b.type("#launch-count", "20"));
  ASSERT_TRUE(b.click("#launch-start"));
  // Live: the run it made, and its progress lines, appear without a reload.
  ASSERT_TRUE(b.wait("document.querySelector('.launch .launch-run')", std::chrono::seconds(120)))
      << b.text("#launches");
  ASSERT_TRUE(
      b.wait("document.querySelector('.launch .launch-log').textContent.includes('iteration 1')",
             std::chrono::seconds(120)))
      << b.text("#launches");
  std::string run_id = b.text(".launch .launch-run").substr(5);
  screenshot(b, "launch-running");
  ASSERT_TRUE(b.click(".launch .launch-stop"));
  ASSERT_TRUE(
      b.wait("document.querySelector('.launch .launch-state').textContent === "
             "'ended (exit 130)'",
             std::chrono::seconds(60)))
      << b.text("#launches");
  // The run saved what it had and reads interrupted, as after Ctrl-C in a terminal.
  auto view = nlohmann::json::parse(curl("/api/runs/" + run_id).second, nullptr, false);
  ASSERT_TRUE(view.is_object()) << run_id;
  EXPECT_EQ(view["run"]["state"], "interrupted") << view["run"].dump();
  EXPECT_LT(view["nodes"].size(), 21u);
  // A command line cannot be smuggled in through a field.
  auto bad = post("/api/launch", {{"mode", "auto"}, {"task", "--help"}});
  EXPECT_EQ(bad.first, 400) << bad.second;
  bad = post("/api/launch", {{"mode", "eval"}, {"task", "12p_rmsnorm"}});
  EXPECT_EQ(bad.first, 400) << bad.second;
}

TEST_F(ServeBrowserTest, TheSuitePagePlotsSpeedupsAndComparesTwoSavedRuns) {
  auto task = [](const std::string& id, const std::string& verdict, double s, double lo,
                 double hi) {
    return nlohmann::json{
        {"task", id},
        {"evaluation",
         {{"task", id}, {"verdict", verdict}, {"speedup", s}, {"speedup_ci95", {lo, hi}}}}};
  };
  const std::string hostile = "<img src=x onerror=window.__xss=5>";
  nlohmann::json a = {
      {"schema", "kforge.bench/2"},
      {"tasks",
       {task("8p_gemm", "correct", 1.2, 1.1, 1.3), task("12p_rmsnorm", "correct", 2.0, 1.9, 2.1),
        task(hostile, "correct", 1.0, 0.9, 1.1), task("1p_busy", "correct", 1.5, 1.4, 1.6)}}};
  // B's 1p_busy was timed on a busy machine: its reading is kept apart and is no figure.
  nlohmann::json busy = {{"task", "1p_busy"},
                         {"evaluation",
                          {{"task", "1p_busy"},
                           {"verdict", "correct"},
                           {"speedup", nullptr},
                           {"busy_speedup", {{"median", 0.51}, {"ci95", {0.21, 2.49}}}},
                           {"machine_load", {{"busy", true}}}}}};
  nlohmann::json b = {
      {"schema", "kforge.bench/2"},
      {"tasks",
       {task("8p_gemm", "correct", 2.5, 2.4, 2.6),
        task("12p_rmsnorm", "correct", 2.02, 1.95, 2.1),
        {{"task", hostile}, {"evaluation", {{"task", hostile}, {"verdict", "incorrect"}}}},
        busy}}};
  ASSERT_TRUE(core::write_atomic(dir_ / "a.json", a.dump()).ok());
  ASSERT_TRUE(core::write_atomic(dir_ / "b.json", b.dump()).ok());
  auto url = start_serve();
  ASSERT_FALSE(url.empty()) << serve_->output();
  Browser b_(dir_);
  ASSERT_TRUE(b_.ok());
  b_.go(url + "#/suite");
  ASSERT_TRUE(b_.wait("document.getElementById('bench-a')"));
  // Files picked as a person would (the driver fills the file inputs).
  ASSERT_TRUE(b_.type("#bench-a", (dir_ / "a.json").string()));
  ASSERT_TRUE(b_.wait("document.querySelectorAll('#speedup-plot rect.bar').length === 4"))
      << b_.eval("return document.body.innerText;").dump();
  ASSERT_TRUE(b_.type("#bench-b", (dir_ / "b.json").string()));
  ASSERT_TRUE(b_.wait("document.getElementById('compare-table')"))
      << b_.eval("return document.body.innerText;").dump();
  // A's four bars and B's two (its incorrect and its busy task have none), with their intervals.
  EXPECT_EQ(
      b_.eval("return document.querySelectorAll('#speedup-plot rect.bar').length;").get<int>(), 6);
  EXPECT_EQ(b_.eval("return document.querySelectorAll('#speedup-plot line').length;").get<int>(),
            7);
  EXPECT_THAT(b_.text("#speedup-plot"), HasSubstr("busy: no figure"));
  EXPECT_THAT(b_.text("#speedup-plot"), Not(HasSubstr("0.51")));
  EXPECT_THAT(b_.text("tr[data-task='1p_busy']"), HasSubstr("not compared: B timed busy"));
  EXPECT_THAT(b_.text("#compare-summary"), HasSubstr("1 task not compared (timed busy"));
  EXPECT_THAT(b_.text("tr[data-task='8p_gemm']"), HasSubstr("B faster"));
  EXPECT_THAT(b_.text("tr[data-task='8p_gemm']"), HasSubstr("2.08x"));
  EXPECT_THAT(b_.text("tr[data-task='12p_rmsnorm']"), HasSubstr("within noise"));
  EXPECT_THAT(b_.text("#compare-summary"), HasSubstr("B faster on 1"));
  EXPECT_THAT(b_.text("#compare-table"), HasSubstr("correct → incorrect"));
  // The hostile task id is a label, not markup.
  EXPECT_THAT(b_.text("#speedup-plot"), HasSubstr(hostile));
  EXPECT_TRUE(b_.eval("return window.__xss === undefined && !document.querySelector('#main img');")
                  .get<bool>());
  screenshot(b_, "suite");
}

// The results bench kept in the store, with no file picked: listed, the newest two compared, and
// a task's speedup plotted across them (a busy reading named, not drawn).
TEST_F(ServeBrowserTest, TheSuitePageShowsKeptResultsAndATaskOverTime) {
  seed_kept_results(dir_ / "state");
  auto url = start_serve();
  ASSERT_FALSE(url.empty()) << serve_->output();
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(url + "#/suite");
  ASSERT_TRUE(b.wait("document.querySelectorAll('#kept-table tr[data-result]').length === 2"))
      << b.eval("return document.body.innerText;").dump();
  ASSERT_TRUE(b.wait("document.querySelectorAll('#history-svg circle.point').length === 2"))
      << b.eval("return document.body.innerText;").dump();
  EXPECT_EQ(b.eval("return document.getElementById('history-task').value;").get<std::string>(),
            "t");
  EXPECT_THAT(b.text("#history-plot"), HasSubstr("2.50x"));
  ASSERT_TRUE(b.wait("document.getElementById('compare-table')"))
      << b.eval("return document.body.innerText;").dump();
  EXPECT_THAT(b.text("#suite-compare"), HasSubstr("#2 against #1"));
  EXPECT_THAT(b.text("#compare-table tr[data-task='t']"), HasSubstr("B faster"));
  EXPECT_THAT(b.text("#compare-table tr[data-task='u']"), HasSubstr("not compared: B timed busy"));
  // Task u: one figure, and the busy reading named.
  b.eval(
      "const s = document.getElementById('history-task'); s.value = 'u';"
      "s.dispatchEvent(new Event('change'));");
  ASSERT_TRUE(b.wait("document.querySelectorAll('#history-svg circle.point').length === 1"));
  EXPECT_THAT(b.text("#history-plot"), HasSubstr("busy"));
  screenshot(b, "suite-kept");
}

TEST_F(ServeBrowserTest, ANonLoopbackBindAsksTheBrowserForTheToken) {
  seed();
  auto url = start_serve({"--host", "0.0.0.0", "--allow-remote"});
  ASSERT_FALSE(url.empty()) << serve_->output();
  auto token = url.substr(url.find("?token=") + 7);
  Browser b(dir_);
  ASSERT_TRUE(b.ok());
  b.go(base() + "/");
  EXPECT_THAT(b.eval("return document.body.innerText;").get<std::string>(),
              HasSubstr("a token is required"));
  EXPECT_FALSE(b.eval("return !!document.getElementById('sessions');").get<bool>());
  screenshot(b, "token-refused");
  b.go(base() + "/?token=" + token);
  EXPECT_TRUE(b.wait("document.querySelectorAll('#sessions tr[data-session]').length === 2"))
      << b.eval("return document.body.innerText;").dump();
  // From then on the cookie carries it: the address without the token works in this browser.
  b.go(base() + "/#/run/20260101-000000-aaaa");
  EXPECT_TRUE(b.wait("document.querySelector('#graph svg')"));
}

}  // namespace kforge::web
