#pragma once
// The table of subcommands (Ninja's kTools[] habit): each binds its arguments from the option
// registry and says what it runs; its result is the process's exit status.

#include "kforge/cli/command_line.h"

namespace kforge::cli {

struct Command {
  const char* name;
  const char* help;
  void (*add)(CommandLine& command);
  bool hidden = false;  // for kforge itself: neither --help nor completion shows it
};

void add_list(CommandLine& command);
void add_show(CommandLine& command);
void add_eval(CommandLine& command);
void add_hw(CommandLine& command);
void add_bench(CommandLine& command);
void add_auto(CommandLine& command);
void add_search(CommandLine& command);
void add_hitl(CommandLine& command);
void add_graph(CommandLine& command);
void add_sessions(CommandLine& command);
void add_export(CommandLine& command);
void add_compare(CommandLine& command);
void add_results(CommandLine& command);
void add_llm(CommandLine& command);
void add_completion(CommandLine& command);
void add_serve(CommandLine& command);
void add_eval_job(CommandLine& command);

inline constexpr Command kCommands[] = {
    {"list", "List the tasks of a suite", add_list},
    {"show",
     "Show a task resolved for one size: shapes, params, tolerance, cost and the kernel's C "
     "signature",
     add_show},
    {"eval", "Compile, check and time a kernel against the task's baseline in the sandbox",
     add_eval},
    {"auto",
     "Optimize a kernel in a closed loop: plan, implement, debug, tune, time, profile, until a "
     "stop rule fires",
     add_auto},
    {"hitl", "Work with the agents step by step: they propose, you approve, edit or redirect",
     add_hitl},
    {"search",
     "Explore a graph of candidate kernels (parallel, beam or evolutionary), each expansion an "
     "auto run",
     add_search},
    {"graph", "Show a run's graph of kernels (dot, svg or json)", add_graph},
    {"sessions", "List auto runs and searches with their best speedup, cost and state",
     add_sessions},
    {"export", "Write any node's kernel, plan and outcome out of the store (default: a run's best)",
     add_export},
    {"bench",
     "Evaluate one implementation (baseline, expert, reference or a folder of kernels) of every "
     "task",
     add_bench},
    {"compare",
     "Compare two bench results (ids from `kforge results`, or saved files) task by task: ratio of "
     "speedups and whether their intervals overlap",
     add_compare},
    {"results",
     "List what bench and eval kept (machine, commit, verdicts, speedups), or one result's rows",
     add_results},
    {"serve",
     "Serve a local web page: sessions, runs with their graphs (live while a search runs) and "
     "hitl sessions in the browser",
     add_serve},
    {"hw", "Describe this machine and its measured peaks (FMA GFLOP/s, STREAM-triad GB/s)", add_hw},
    {"llm", "Talk to models: `ping` one, or report `usage` and cost by session, role and model",
     add_llm},
    {"completion",
     "Print a shell completion script: kforge completion bash|zsh|fish (docs/cli.md says how to "
     "install it)",
     add_completion},
    {"eval-job",
     "Run one evaluation of a cluster job on this node (the Slurm executor submits it; not for "
     "people)",
     add_eval_job, true},
};

}  // namespace kforge::cli
