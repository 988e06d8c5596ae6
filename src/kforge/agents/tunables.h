#pragma once
// Tunable parameters a kernel declares for the tuner:
//   // kforge:tune TILE_M = {4, 6, 8}
//   #ifndef TILE_M
//   #define TILE_M 6
//   #endif
// The tuner compiles variants with -DTILE_M=v; the chosen values are written back as the guards'
// defaults, so the tuned kernel compiles the same without flags and stays tunable: a value pinned
// ahead of the guards would silently override every later -D (and every edit an agent makes to
// the default).

#include <map>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::agents {

struct Tunable {
  std::string name;
  std::vector<std::string> values;
  int line = 0;
  std::string default_value;  // what its `#ifndef` guard defines: the setting the tuner must beat
};

using TuneConfig = std::map<std::string, std::string>;

// Errors name the line: a malformed declaration, a duplicate, or a name without its #ifndef
// default.
Result<std::vector<Tunable>> parse_tunables(const std::string& source);

// The configurations to try: the whole grid if it has at most `budget` points, else `budget`
// points sampled without repetition with `seed` (the first value of each tunable always included).
std::vector<TuneConfig> tune_configs(const std::vector<Tunable>& tunables, int budget,
                                     unsigned seed);

std::vector<std::string> config_flags(const TuneConfig& config);  // {"-DTILE_M=8", ...}
std::string describe(const TuneConfig& config);                   // "TILE_M=8 KC=256"
// Each `#define NAME <default>` inside its `#ifndef NAME` guard gets the chosen value, with a
// comment naming the declared default. A guard of another shape gets a #define ahead of it.
std::string apply_config(const std::string& source, const TuneConfig& config);
TuneConfig default_config(
    const std::vector<Tunable>& tunables);  // every tunable at its guard's value

}  // namespace kforge::agents
