#pragma once
// kforge's settings from its environment, read in this one place (docs/environment.md lists every
// variable): the layers below receive the values (the compiler its path, the lock its bound)
// instead of reading variables themselves. Read afresh on each call, because --quiet and --color
// set theirs once the command line is parsed.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kforge::cli {

struct Settings {
  std::string cxx;  // KFORGE_CXX: the C++ compiler for kernels ("": g++)
  std::vector<std::string>
      toolchain_dirs;     // KFORGE_TOOLCHAIN_DIRS: a compiler's trees outside /usr
  std::string cuda_home;  // KFORGE_CUDA_HOME: the CUDA toolkit ("": /usr/local/cuda)
  std::string cuda_arch;  // KFORGE_CUDA_ARCH: sm_XX to compile for ("": the device's, else sm_90)
  double lock_wait_s = 600;   // KFORGE_LOCK_WAIT_S: the longest wait for another process's timing
  double peak_budget_s = 30;  // KFORGE_PEAK_BUDGET_S: the longest peak measurement
  double quiet_wait_s =
      60;  // KFORGE_QUIET_WAIT_S: the longest wait for a quiet machine before a timing
  bool progress = true;  // KFORGE_PROGRESS: 0 silences progress lines
  std::string colour;    // KFORGE_COLOR: auto, always or never ("": auto)
  std::string no_color;  // NO_COLOR: any value turns colour off on a terminal
  std::string term;      // TERM: "dumb" is never painted
  std::string editor;    // VISUAL, else EDITOR, else vi: for hitl's `edit`
  // The KFORGE_* settings above that are set, as NAME=value: all a cluster job's script exports
  // (its job runs with none of this process's environment, so no API key goes with it).
  std::vector<std::string> node_env;
};

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// The settings `env` gives; a malformed number is a UsageError that names the variable.
Settings read_settings(const EnvLookup& env);
// This process's.
Settings current_settings();
// The names of this process's variables that look like credentials (*_API_KEY, *_TOKEN,
// *_SECRET*): a cluster job refuses to run with any (it was submitted with --export=NONE).
std::vector<std::string> secret_variables_present();

}  // namespace kforge::cli
