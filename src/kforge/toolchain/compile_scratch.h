#pragma once
// Where a compile happens: a fresh folder under a private root outside the state folder and the
// artifact cache (so no relative path from it leads to secrets or cached reference outputs), the
// source under a name the compiler cannot mistake for an option, and the move of the finished
// folder into the cache.

#include <filesystem>
#include <string>

#include "kforge/core/result.h"

namespace kforge::toolchain {

// The private root for scratch folders: `requested`, or $TMPDIR/kforge-build-<uid> when empty.
// Created 0700; refused when it is not a real directory owned by this user (another user could
// read the sources or plant files there).
Result<std::filesystem::path> private_scratch_root(const std::filesystem::path& requested);

// A new, empty folder under `root` for one compile.
Result<std::filesystem::path> make_scratch(const std::filesystem::path& root);

// The name the source is written under. `display_name` (what the user or agent called the file,
// what diagnostics show) is kept when it is a plain C++ file name: basename, [A-Za-z0-9._-],
// not starting with '-' or '.', ending in .cpp, .cc or .cxx (or .cu when `extension` is ".cu").
// Anything else becomes "kernel" + extension.
std::string scratch_file_name(const std::string& display_name,
                              const std::string& extension = ".cpp");

// Moves a finished scratch folder to `entry` in the cache; across filesystems (a tmpfs scratch, a
// disk cache) by copying into a staging folder beside `entry` and renaming that. Succeeds when
// `entry` exists afterwards, even if a concurrent compile stored it first; `scratch` is gone.
Status publish_scratch(const std::filesystem::path& scratch, const std::filesystem::path& entry);

}  // namespace kforge::toolchain
