#pragma once
// The check on an option that takes one of a fixed set of values: a value outside it is named
// with the closest allowed one ("--partner: 'torchcompile' is not one of …; did you mean
// 'torch-compile'?"), as a mistyped option is.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kforge::cli {

// Described as CLI11's IsMember is ("{dot,svg,json}"): --help shows it and shell completion
// reads the choices from it (completion.cpp).
CLI::Validator choice_check(std::vector<std::string> choices);

}  // namespace kforge::cli
