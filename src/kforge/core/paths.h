#pragma once
// Where kforge keeps its state and finds its data: the .kforge folder (secrets, store, reference
// outputs), the per-user cache (compiled artifacts, the ATen header, measured peaks, the machine
// lock), the source tree (bench/, prompts/, knowledge/), the helper executables, and task lookup.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::core {

// $KFORGE_DIR, or .kforge in the working directory: what belongs to one project.
std::filesystem::path state_dir();
// What belongs to the machine and the user, shared by every working directory: $KFORGE_CACHE_DIR,
// else $XDG_CACHE_HOME/kforge, else ~/.cache/kforge (the state folder's cache/ when there is no
// home).
std::filesystem::path user_cache_dir();
// Where kforge reads its data (bench/, prompts/, knowledge/, strategies/, the GPU sources):
// $KFORGE_SOURCE_DIR; else share/kforge beside the executable's folder, where a release puts it
// (bin/kforge → share/kforge), so an unpacked tarball runs from anywhere with no variable; else
// the source tree this binary was built from (a build tree has no share/kforge).
std::filesystem::path source_dir();
// The same rule with its inputs given: `override` is $KFORGE_SOURCE_DIR's value (empty: unset).
std::filesystem::path resolve_source_dir(const std::string& override,
                                         const std::filesystem::path& exe_dir,
                                         const std::filesystem::path& built_from);
// The folder holding the running executable (kforge-run and kforge-peak live beside kforge).
std::filesystem::path executable_dir();
// Where kforge finds its helper programs (kforge-run, kforge-run-cuda, kforge-peak) and the Python
// workers: $KFORGE_BIN_DIR (tests, a sanitizer tree), else executable_dir(), in a build tree and
// in a release alike.
std::filesystem::path helper_dir();
// The default suite: bench/jaxbench under the working directory if present, else under
// source_dir().
std::filesystem::path default_suite_dir();

// TASK may be a folder holding task.toml, an id in the default suite, or an unambiguous prefix
// of one ("12p" → 12p_rmsnorm).
Result<std::filesystem::path> find_task_dir(const std::string& task);
// Task folders (those with a task.toml) directly under a suite folder, sorted by id number.
std::vector<std::filesystem::path> list_task_dirs(const std::filesystem::path& suite);

}  // namespace kforge::core
