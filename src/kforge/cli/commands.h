#pragma once
// The table of subcommands (Ninja's kTools[] habit): each adds itself to the CLI11 app and sets
// the process exit status when it runs.

#include <CLI/CLI.hpp>

namespace kforge::cli {

// Type names that say what an argument holds, shown in --help and read by shell completion:
// `->type_name(kTaskType)` on a task argument, `->type_name(kSizeType)` on a --size.
inline constexpr const char* kTaskType = "TASK";
inline constexpr const char* kSizeType = "SIZE";

struct Command {
  const char* name;
  const char* help;
  void (*add)(CLI::App& command, int& exit_status);
};

void add_list(CLI::App& command, int& exit_status);
void add_show(CLI::App& command, int& exit_status);
void add_eval(CLI::App& command, int& exit_status);
void add_hw(CLI::App& command, int& exit_status);
void add_bench(CLI::App& command, int& exit_status);
void add_auto(CLI::App& command, int& exit_status);
void add_search(CLI::App& command, int& exit_status);
void add_hitl(CLI::App& command, int& exit_status);
void add_graph(CLI::App& command, int& exit_status);
void add_sessions(CLI::App& command, int& exit_status);
void add_export(CLI::App& command, int& exit_status);
void add_compare(CLI::App& command, int& exit_status);
void add_llm(CLI::App& command, int& exit_status);
void add_completion(CLI::App& command, int& exit_status);

inline constexpr Command kCommands[] = {
    {"list", "List the tasks of a suite", add_list},
    {"show", "Show a task resolved for one size: shapes, params, tolerance, cost and the kernel's C signature", add_show},
    {"eval", "Compile, check and time a kernel against the task's baseline in the sandbox", add_eval},
    {"auto", "Optimize a kernel in a closed loop: plan, implement, debug, tune, time, profile, until a stop rule fires", add_auto},
    {"hitl", "Work with the agents step by step: they propose, you approve, edit or redirect", add_hitl},
    {"search", "Explore a graph of candidate kernels (parallel, beam or evolutionary), each expansion an auto run", add_search},
    {"graph", "Show a run's graph of kernels (dot, svg or json)", add_graph},
    {"sessions", "List auto runs and searches with their best speedup, cost and state", add_sessions},
    {"export", "Write any node's kernel, plan and outcome out of the store (default: a run's best)", add_export},
    {"bench", "Evaluate one implementation (baseline, expert, reference or a folder of kernels) of every task", add_bench},
    {"compare", "Compare two saved bench results task by task: ratio of speedups and whether their intervals overlap", add_compare},
    {"hw", "Describe this machine and its measured peaks (FMA GFLOP/s, STREAM-triad GB/s)", add_hw},
    {"llm", "Talk to models: `ping` one, or report `usage` and cost by session, role and model", add_llm},
    {"completion", "Print a shell completion script: kforge completion bash|zsh|fish (see the README to install it)", add_completion},
};

}  // namespace kforge::cli
