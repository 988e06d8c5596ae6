#pragma once
// The kforge app: the root with its own options and every command of commands.h, each command's
// arguments bound from the option registry. main() parses with it; the tests read it.

#include <CLI/CLI.hpp>
#include <memory>

#include "kforge/cli/command_line.h"

namespace kforge::cli {

struct KforgeApp {
  std::unique_ptr<CLI::App> app;
  std::shared_ptr<AppState> state;
};

KforgeApp make_app();

}  // namespace kforge::cli
