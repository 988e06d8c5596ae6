#pragma once
// A small app shaped like kforge's (a root with --quiet, commands with options and positionals,
// a command with its own subcommands, a hidden command), for tests of what is read off an app.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "kforge/cli/option_registry.h"

namespace kforge::cli {

inline std::unique_ptr<CLI::App> toy_app() {
  // Where parsed values go, typed as kforge's are (text, a number, a list), so that the options'
  // type names match the real ones.
  static std::string text;
  static int number;
  static std::vector<std::string> texts;
  auto app = std::make_unique<CLI::App>("toy", "kforge");
  app->require_subcommand(1);
  app->fallthrough();
  app->add_flag("--quiet,-q")->description("No progress lines");
  auto* eval = app->add_subcommand("eval", "Evaluate a kernel");
  eval->add_option("task", text, "Task")->required()->type_name(kTaskType);
  eval->add_option("kernel", text, "Kernel source")->required();
  eval->add_option("--size", text, "Size")->type_name(kSizeType);
  eval->add_option("--threads", number, "Threads")->check(CLI::Range(1, 64));
  eval->add_flag("--json")->description("Print JSON");
  eval->add_flag("--no-time")->description("Check only");
  auto* graph = app->add_subcommand("graph", "Show a graph");
  graph->add_option("id", text, "Run id")->required();
  graph->add_option("--format", text, "Format")->check(CLI::IsMember({"dot", "svg", "json"}));
  auto* llm = app->add_subcommand("llm", "Talk to models");
  llm->require_subcommand(1);
  llm->add_subcommand("ping", "One request")->add_flag("--json")->description("Print JSON");
  llm->add_subcommand("usage", "Usage")->add_option("session", text, "Session");
  app->add_subcommand("export", "Export a node")->add_option("files", texts, "Files");
  app->add_subcommand("secret", "Not for users")->group("");
  return app;
}

}  // namespace kforge::cli
