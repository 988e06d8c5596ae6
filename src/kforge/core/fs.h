#pragma once
// File helpers with errors that name the file. Writes are atomic (temp file + rename), so a
// killed process never leaves half a cache entry or half a kernel behind.

#include <filesystem>
#include <string>
#include <string_view>

#include "kforge/core/result.h"

namespace kforge::core {

Result<std::string> read_text(const std::filesystem::path& path);
// A source file named by a user (a kernel to evaluate): refused, before anything is compiled,
// when it is missing, a folder, not a regular file, or not text (a NUL byte, invalid UTF-8).
Result<std::string> read_source(const std::filesystem::path& path);
// The same, refusing a file that is kforge's own: one inside `private_dir` (the state folder:
// secrets, reference outputs), whatever link or path leads there, and a hard link to one of its
// files. A kernel "source" that was a symlink to the secret seeds printed a seed in the compile
// diagnostic.
Result<std::string> read_source(const std::filesystem::path& path,
                                const std::filesystem::path& private_dir);
Status write_atomic(const std::filesystem::path& path, std::string_view content);
Status ensure_dir(const std::filesystem::path& path);

}  // namespace kforge::core
