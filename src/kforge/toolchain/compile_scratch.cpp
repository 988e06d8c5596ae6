// Scratch folders for compiles, and their move into the cache.
#include "kforge/toolchain/compile_scratch.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace kforge::toolchain {
namespace {

std::string random_suffix() { return fmt::format("{}-{:08x}", ::getpid(), std::random_device{}()); }

bool plain_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

Result<std::filesystem::path> private_scratch_root(const std::filesystem::path& requested) {
  std::filesystem::path root = requested;
  std::error_code ec;
  if (root.empty()) {
    auto tmp = std::filesystem::temp_directory_path(ec);
    if (ec)
      return Error{fmt::format("no temporary folder for compiles ($TMPDIR): {}", ec.message())};
    root = tmp / fmt::format("kforge-build-{}", ::geteuid());
  } else if (root.has_parent_path()) {
    std::filesystem::create_directories(root.parent_path(), ec);
  }
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST)
    return Error{fmt::format("cannot create the compile folder {}: {}", root.string(),
                             std::strerror(errno))};
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0)
    return Error{fmt::format("{}: {}", root.string(), std::strerror(errno))};
  if (!S_ISDIR(st.st_mode))
    return Error{fmt::format(
        "the compile folder {} is not a directory (a symbolic link?); remove it", root.string())};
  if (st.st_uid != ::geteuid())
    return Error{
        fmt::format("the compile folder {} belongs to uid {}, not to this user ({}); remove it or "
                    "set another folder",
                    root.string(), st.st_uid, ::geteuid())};
  if ((st.st_mode & 077) != 0 && ::chmod(root.c_str(), 0700) != 0)
    return Error{fmt::format("cannot make the compile folder {} private: {}", root.string(),
                             std::strerror(errno))};
  return root;
}

Result<std::filesystem::path> make_scratch(const std::filesystem::path& root) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto dir = root / ("compile-" + random_suffix());
    if (::mkdir(dir.c_str(), 0700) == 0) return dir;
    if (errno != EEXIST)
      return Error{fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno))};
  }
  return Error{fmt::format("cannot create a fresh folder under {}", root.string())};
}

std::string scratch_file_name(const std::string& display_name, const std::string& extension) {
  std::string fallback = "kernel" + extension;
  const std::string& n = display_name;
  if (n.empty() || n.size() > 128 || n[0] == '-' || n[0] == '.') return fallback;
  for (char c : n)
    if (!plain_name_char(c)) return fallback;  // '/' included: a basename only
  // The extension decides the language and whether g++ takes the file as source at all
  // (kernel.h would become a precompiled header, kernel.o a linker input).
  if (extension == ".cu") return n.ends_with(".cu") ? n : fallback;
  if (!(n.ends_with(".cpp") || n.ends_with(".cc") || n.ends_with(".cxx"))) return fallback;
  return n;
}

Status publish_scratch(const std::filesystem::path& scratch, const std::filesystem::path& entry) {
  std::error_code ec;
  std::filesystem::create_directories(entry.parent_path(), ec);
  std::filesystem::rename(scratch, entry, ec);
  if (ec == std::errc::cross_device_link) {
    // Copy next to the entry first, so the entry appears whole or not at all.
    auto staging =
        entry.parent_path() / (entry.filename().string() + ".staging-" + random_suffix());
    std::filesystem::copy(scratch, staging, std::filesystem::copy_options::recursive, ec);
    if (!ec) std::filesystem::rename(staging, entry, ec);
    std::error_code ignored;
    std::filesystem::remove_all(staging, ignored);
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  if (std::filesystem::exists(entry, ignored))
    return ok_status();  // ours, or a concurrent compile's
  return Error{
      fmt::format("cannot store the compile in the cache at {}: {}", entry.string(), ec.message())};
}

}  // namespace kforge::toolchain
