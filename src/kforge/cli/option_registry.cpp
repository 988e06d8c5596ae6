// The table of every option kforge takes. One row per option: a flag that several commands take
// (--size, --threads, --budget, --json) is one row listing them, so its help, check and
// environment variable are written once. Defaults differ by command (eval times for 2 s, auto for
// 1 s), so they stay with each command's variables and --help shows them from there.
#include "kforge/cli/option_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kforge/targets/target.h"

namespace kforge::cli {
namespace {

using Commands = std::vector<std::string>;

const Commands kTimed = {"eval", "bench", "auto", "search", "hitl", "serve"};
const Commands kAgents = {"auto", "search", "hitl", "serve"};

std::vector<OptionSpec> make_registry() {
  std::vector<OptionSpec> r;
  auto add = [&r](OptionSpec s) -> OptionSpec& { return r.emplace_back(std::move(s)); };

  // The root's: they fall through to every command.
  add({"quiet",
       "--quiet,-q",
       "No progress lines on stderr (also KFORGE_PROGRESS=0)",
       {kRootCommand}});
  add({"color",
       "--color",
       "Colour on stdout: auto (on a terminal, unless NO_COLOR is set), always or never",
       {kRootCommand},
       "KFORGE_COLOR"})
      .choices = {"auto", "always", "never"};
  add({"pyenv",
       "--pyenv",
       "The Python environment with PyTorch and JAX that kforge's workers run in: a venv, a conda "
       "environment or a prefix holding bin/python (default: pyenv/ beside kforge's folder); "
       "`kforge hw` says what it lacks",
       {kRootCommand},
       "KFORGE_PYENV"});

  // What a task is and how it is timed.
  add({"task",
       "task",
       "Task folder or id",
       {"eval", "show", "auto", "search", "hitl"},
       "",
       kTaskType});
  add({"size",
       "--size",
       "Size preset: ci, cpu or full (default: the task's own)",
       {"eval", "show", "bench", "auto", "search", "hitl"},
       "",
       kSizeType});
  add({"target",
       "--target",
       "What kernels are written for: cpp (CPUs; default), cuda (NVIDIA GPUs, nvcc) or pallas "
       "(JAX/Pallas for TPUs and GPUs; interpret mode on a CPU)",
       {"eval", "show", "bench", "hw", "auto", "search", "hitl"},
       "KFORGE_TARGET"})
      .choices = target::target_names();
  add({"dtype",
       "--dtype",
       "pallas target: the dtype the kernel and its XLA baseline compute in, f32 (default) or "
       "bf16 (inputs cast to bfloat16; checked against the f32 reference at the task's bf16 "
       "tolerance)",
       {"eval", "bench", "show", "auto", "search", "hitl"},
       "KFORGE_DTYPE"})
      .choices = {"f32", "bf16"};
  add({"threads", "--threads", "Threads for the kernel and its partner (default: all CPUs)",
       kTimed})
      .range = ValueRange{1, 1024};
  {
    auto& budget = add({"budget", "--budget",
                        "Seconds of paired timing per evaluation (extended up to threefold until "
                        "the median is known to ±2%)",
                        kTimed});
    budget.range = ValueRange{0.05, 600};
    budget.show_default = true;
  }
  add({"json",
       "--json",
       "Print JSON (for scripts)",
       {"eval", "show", "list", "bench", "auto", "search", "graph", "sessions", "export", "compare",
        "results", "hw", "llm ping", "llm usage"}});

  // eval
  add({"kernel",
       "kernel",
       "Kernel source (C++, defines the signature of `kforge show TASK`); a name starting with '-' "
       "goes after `--` or as ./-x.cpp",
       {"eval"}});
  add({"against",
       "--against",
       "Time against this kernel instead of the baseline (both are checked)",
       {"eval"}});
  add({"against-role",
       "--against-role",
       "Role of the --against source (candidate: sandboxed and checked; expert: trusted)",
       {"eval"}})
      .choices = {"candidate", "expert", "baseline", "reference"};
  add({"role",
       "--role",
       "candidate (sandboxed; default), or a trusted expert, baseline or reference source",
       {"eval"}})
      .choices = {"candidate", "expert", "baseline", "reference"};
  add({"no-time", "--no-time", "Check correctness only", {"eval"}});
  add({"partner",
       "--partner",
       "Whom every timed call is paired with and checked against: libtorch (default, alias "
       "baseline: baseline.cpp), reference (the plain loops), or a peer run from the Python "
       "environment: torch (current PyTorch eager), torch-compile, torch-compile-max (Inductor, "
       "max-autotune), xla (jax.jit); a peer's compile is untimed and reported",
       {"eval", "bench"}})
      .choices = {"baseline",      "libtorch",          "reference", "torch",
                  "torch-compile", "torch-compile-max", "xla"};
  {
    auto& sets = add({"check-sets", "--check-sets", "Secret input sets to check on", {"eval"}});
    sets.range = ValueRange{1, 16};
    sets.show_default = true;
  }
  {
    auto& runs = add({"runs",
                      "--runs",
                      "Time the pair this many times, in fresh processes, and report the spread "
                      "between runs and an interval that holds across them",
                      {"eval"}});
    runs.range = ValueRange{1, 20};
    runs.show_default = true;
  }
  {
    auto& timeout = add({"call-timeout", "--timeout", "Seconds allowed per check call", {"eval"}});
    timeout.range = ValueRange{0.1, 3600};
    timeout.show_default = true;
  }
  {
    auto& retries = add({"retries",
                         "--retries",
                         "Measure a row timed on a busy machine again, up to N times (0: never)",
                         {"bench"}});
    retries.range = ValueRange{0, 20};
    retries.show_default = true;
  }
  add({"allow-lib",
       "--allow-lib",
       "Let the kernel link this library (e.g. openblas); repeatable",
       {"eval"}});
  add({"profile",
       "--profile",
       "After timing: hot lines (sampled), the compiler's vectorization remarks, the roofline "
       "position",
       {"eval"}});
  add({"dump",
       "--dump",
       "Write the check inputs, the kernel's outputs and the expected outputs as .npy files here "
       "(bench: under DIR/<id>)",
       {"eval", "bench"}});

  // show
  add({"header", "--header", "Print the generated kforge_task.h", {"show"}});
  add({"python",
       "--python",
       "Print the generated kforge_task.py (for workload.py, baseline.py)",
       {"show"}});

  // list, bench, search: a suite and a selection of its tasks.
  add({"suite-dir", "dir", "Suite folder (default: bench/jaxbench)", {"list"}});
  add({"tag",
       "--tag",
       "Only tasks with this tag (repeat for several: all must match), e.g. --tag attention",
       {"list"}});
  add({"suite",
       "--suite",
       "Suite folder (bench: default bench/jaxbench; search: search every task of it)",
       {"bench", "search"}});
  add({"tasks",
       "--tasks",
       "Comma-separated task ids (default: all of the suite)",
       {"bench", "search"}});
  add({"impl", "--impl", "baseline, expert, reference, or a folder of <id>.cpp kernels", {"bench"}})
      .show_default = true;
  add({"csv", "--csv", "Print CSV", {"bench"}});
  add({"peers",
       "--peers",
       "Time the --impl against every peer (libtorch, torch, torch-compile, torch-compile-max, "
       "xla), each paired on its own: one table, the fastest peer per task, fast_p against it",
       {"bench"}});
  add({"peer-set",
       "--peer-set",
       "Comma-separated peers for --peers, in table order (default: all five)",
       {"bench"}});
  add({"resume-bench",
       "--resume",
       "Go on with the bench kept as this result (from `kforge results`): run only its tasks that "
       "have no row yet, with its own settings (an option given must match them)",
       {"bench"}});

  // The model-driven commands.
  add({"model",
       "--model",
       "PROVIDER:MODEL for every role (else $KFORGE_MODEL, else kforge.toml [models])",
       {"auto", "search", "hitl", "serve", "llm ping"}});
  add({"config",
       "--config",
       "kforge.toml to use (default: ./kforge.toml)",
       {"auto", "search", "hitl", "serve", "llm ping", "eval", "bench"},
       "KFORGE_CONFIG"});
  add({"executor",
       "--executor",
       "Where evaluations run: local (this machine) or slurm (a job each on a Slurm cluster, as "
       "[executor] in kforge.toml says); default: [executor] kind, else local",
       {"eval", "bench", "auto", "search"},
       "KFORGE_EXECUTOR"})
      .choices = {"local", "slurm"};
  add({"job-folder",
       "job-folder",
       "The job's folder in the shared folder (the Slurm executor writes it and submits this)",
       {"eval-job"}});
  add({"beat",
       "--beat",
       "The partner every kernel is paired with and aims to beat: libtorch, torch, torch-compile, "
       "torch-compile-max, xla, or fastest (default: the peer bench --peers found fastest for the "
       "task on this machine, else libtorch; a resumed hitl session keeps its own)",
       {"auto", "search", "hitl"}})
      .choices = {"fastest", "libtorch", "torch", "torch-compile", "torch-compile-max", "xla"};
  add({"report-peers",
       "--report-peers",
       "After the loop, time the best kernel against these peers for report.md, each side by side "
       "(all, or comma-separated: libtorch, torch, torch-compile, torch-compile-max, xla; "
       "default: none, as it takes about a minute at the cpu size)",
       {"auto"},
       "KFORGE_REPORT_PEERS"});
  add({"prompts", "--prompts",
       "A folder of prompt templates replacing kforge's (planner.txt, coder.txt, …)", kAgents});
  add({"max-usd", "--max-usd",
       "Refuse model calls once this much was spent (a run then stops cleanly)", kAgents});
  add({"max-tokens", "--max-tokens",
       "Refuse model calls once this many tokens were used (a run then stops cleanly)", kAgents});
  add({"stream",
       "--stream",
       "Show the models' replies as they are written (on stderr)",
       {"auto", "search", "llm ping"}});
  // kforge serve.
  {
    auto& port = add({"port",
                      "--port",
                      "TCP port to serve on (0: any free port)",
                      {"serve"},
                      "KFORGE_SERVE_PORT"});
    port.range = ValueRange{0, 65535};
    port.show_default = true;
  }
  add({"host",
       "--host",
       "Address to bind; anything but loopback (127.0.0.1, ::1, localhost) also needs "
       "--allow-remote",
       {"serve"}})
      .show_default = true;
  add({"allow-remote",
       "--allow-remote",
       "Allow a host that other machines can reach; every request must then carry the token "
       "printed at start",
       {"serve"}});
  add({"resume",
       "--resume",
       "Continue the run (search or hitl session) with this id, from `kforge sessions`",
       {"search", "hitl"}});
  {
    auto& iterations = add({"iterations", "--iterations", "At most N iterations", {"auto"}});
    iterations.range = ValueRange{1, 1000};
    iterations.show_default = true;
  }
  {
    auto& patience = add({"patience",
                          "--patience",
                          "Stop after P iterations without a faster correct kernel",
                          {"auto"}});
    patience.range = ValueRange{1, 1000};
    patience.show_default = true;
  }
  {
    auto& debug =
        add({"debug-attempts", "--debug-attempts", "Fixes per debug loop", {"auto", "search"}});
    debug.range = ValueRange{0, 20};
    debug.show_default = true;
  }
  {
    auto& tune = add({"tune-budget",
                      "--tune-budget",
                      "Tuning trials per iteration (search: per expansion)",
                      {"auto", "search"}});
    tune.range = ValueRange{0, 1000};
    tune.show_default = true;
  }
  {
    auto& rounds = add({"tune-rounds",
                        "--tune-rounds",
                        "Side-by-side tuning runs per iteration (search: per expansion): every "
                        "variant briefly, then the close ones longer",
                        {"auto", "search"}});
    rounds.range = ValueRange{1, 1000};
    rounds.show_default = true;
  }
  add({"strategy",
       "--strategy",
       "A hint for the planner, e.g. \"register-tiled AVX2 micro-kernel\"",
       {"auto"}});

  // search
  add({"out-kernels",
       "--out",
       "With --suite: write each task's best kernel to OUT/<id>.cpp",
       {"search"}});
  add({"parallel-tasks", "--parallel-tasks", "With --suite: tasks searched at once", {"search"}})
      .show_default = true;
  {
    auto& algorithm =
        add({"algorithm", "--algorithm", "The search: parallel, beam or evolve", {"search"}});
    algorithm.choices = {"parallel", "beam", "evolve"};
    algorithm.show_default = true;
  }
  auto search_number = [&](const char* key, const char* help) {
    add({key, std::string("--") + key, help, {"search"}}).show_default = true;
  };
  search_number(
      "jobs", "Expansions in flight at once (model calls and compiles overlap; timing never does)");
  search_number("seed", "Seed for every random choice");
  search_number("width", "parallel: expansions from the root");
  search_number("beam-size", "beam: nodes kept per depth");
  search_number("branches", "beam: children per beam node");
  search_number("depth", "beam: depth");
  search_number("keep-factor",
                "beam: a child enters the beam only if its time is at most F × its parent's");
  search_number("generations", "evolve: generations");
  search_number("population", "evolve: expansions per island per generation");
  search_number("islands", "evolve: islands");
  search_number("exploit", "evolve: share of parents chosen as their island's best");
  search_number("crossover", "evolve: share of children made by combining two parents");
  search_number("iterations-per-expansion", "auto iterations per expansion");
  add({"strategies",
       "--strategies",
       "A TOML file of extra strategies ([[strategy]] id, family, text)",
       {"search"}});
  add({"start", "--start", "Start from this kernel instead of from scratch", {"search"}});

  // graph, sessions, export: reading the store.
  add({"run-id", "id", "Run id (from `kforge sessions`)", {"graph"}});
  {
    auto& format = add({"format", "--format", "Output format: dot, svg or json", {"graph"}});
    format.choices = {"dot", "svg", "json"};
    format.show_default = true;
  }
  add({"out-file", "--out", "Write to this file instead of stdout", {"graph"}});
  add({"run", "run", "Run (session) id, from `kforge sessions`", {"export"}});
  add({"node",
       "node",
       "Node number within the run (default: the run's best), as `kforge graph RUN` shows it",
       {"export"}});
  add({"out-node",
       "--out",
       "Folder to write kernel.cpp, plan.md and node.json into (default: RUN-node-N)",
       {"export"}});

  // compare
  add({"result-a",
       "a",
       "A: a result id from `kforge results`, or a file (kforge bench --json, kforge eval --json)",
       {"compare"}});
  add({"result-b", "b", "B: a result id or a file", {"compare"}});
  {
    auto& rule = add({"fail-on",
                      "--fail-on",
                      "When to exit 1: regression (a task correct in A and not in B, or slower "
                      "with the intervals apart), any-worse (also a slowdown within noise, or a "
                      "correct task B lacks), never",
                      {"compare"}});
    rule.choices = {"regression", "any-worse", "never"};
    rule.show_default = true;
  }
  {
    auto& threshold = add({"threshold",
                           "--threshold",
                           "Percent: a slowdown smaller than this never fires --fail-on (a "
                           "changed verdict always does)",
                           {"compare"}});
    threshold.range = ValueRange{0, 100};
    threshold.show_default = true;
  }

  // results: what bench and eval kept in the store.
  add({"result-id", "id", "A result id: show its rows (default: list the results)", {"results"}});
  add({"results-task", "--task", "Only results holding a row of this task", {"results"}});
  add({"results-target",
       "--target",
       "Only results of this target (cpp, cuda, pallas)",
       {"results"}});
  add({"results-command", "--command", "Only results of this command", {"results"}}).choices = {
      "bench", "eval"};
  {
    auto& limit = add({"limit", "--limit", "At most the newest N results (0: all)", {"results"}});
    limit.range = ValueRange{0, 1000000};
    limit.show_default = true;
  }

  // hw
  add({"remeasure",
       "--remeasure,--refresh",
       "Measure the peaks again (and print every run and their spread)",
       {"hw"}});
  add({"peak-budget",
       "--budget",
       "Seconds a peak measurement may take, waiting for a quiet machine included (default 30)",
       {"hw"},
       "KFORGE_PEAK_BUDGET_S"})
      .range = ValueRange{2, 3600};

  // llm
  {
    auto& wait = add({"reply-timeout", "--timeout", "Seconds to wait for the reply", {"llm ping"}});
    wait.range = ValueRange{0.1, 3600};
    wait.show_default = true;
  }
  add({"session", "session", "A session id, or 'last' (default: all sessions)", {"llm usage"}});

  // completion
  add({"shell", "shell", "bash, zsh or fish", {"completion"}}).choices = {"bash", "zsh", "fish"};
  {
    auto& candidates = add({"candidates",
                            "--candidates",
                            "Print the task ids or size names to complete",
                            {"completion"}});
    candidates.choices = {"tasks", "sizes"};
    candidates.hidden = true;  // the scripts call it back; users never type it
  }
  return r;
}

// "--remeasure,--refresh" → {"--remeasure", "--refresh"}.
std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  for (std::size_t start = 0, comma; start <= names.size(); start = comma + 1) {
    comma = std::min(names.find(',', start), names.size());
    if (comma > start) out.push_back(names.substr(start, comma - start));
  }
  return out;
}

}  // namespace

bool OptionSpec::taken_by(std::string_view command) const {
  return std::find(commands.begin(), commands.end(), command) != commands.end();
}

const std::vector<OptionSpec>& option_registry() {
  static const std::vector<OptionSpec> registry = make_registry();
  return registry;
}

const OptionSpec* find_option(std::string_view key, std::string_view command) {
  for (const auto& s : option_registry())
    if (s.key == key && s.taken_by(command)) return &s;
  return nullptr;
}

std::vector<std::string> registry_conflicts(const std::vector<OptionSpec>& registry) {
  std::vector<std::string> out;
  std::map<std::pair<std::string, std::string>, std::string> by_name,
      by_key;                                     // (command, name or key) → key
  std::map<std::string, std::string> root_names;  // the root's options reach every command
  for (const auto& s : registry)
    if (s.taken_by(kRootCommand))
      for (const auto& name : split_names(s.names)) root_names.emplace(name, s.key);
  for (const auto& s : registry)
    for (const auto& command : s.commands) {
      if (auto [it, fresh] = by_key.emplace(std::pair{command, s.key}, s.key); !fresh)
        out.push_back(fmt::format("{}: key '{}' declared twice", command, s.key));
      for (const auto& name : split_names(s.names))
        if (auto [it, fresh] = by_name.emplace(std::pair{command, name}, s.key); !fresh)
          out.push_back(
              fmt::format("{}: {} declared by '{}' and '{}'", command, name, it->second, s.key));
        else if (auto root = root_names.find(name);
                 command != kRootCommand && root != root_names.end())
          out.push_back(fmt::format("{}: {} declared by '{}' hides the root's '{}'", command, name,
                                    s.key, root->second));
    }
  return out;
}

}  // namespace kforge::cli
