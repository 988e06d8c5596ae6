// File helpers.
#include "kforge/core/fs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "kforge/core/utf8.h"

namespace kforge::core {

Result<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno))};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::string> read_source(const std::filesystem::path& path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status))
    return Error{fmt::format("{}: no such file", path.string())};
  if (std::filesystem::is_directory(status))
    return Error{fmt::format("{}: is a folder, not a source file", path.string())};
  if (!std::filesystem::is_regular_file(status))
    return Error{
        fmt::format("{}: not a regular file (a kernel is a C++ source file)", path.string())};
  auto text = read_text(path);
  if (!text) return text.error();
  // A compiler would only fail later on these, with a confusing message (or none at all).
  if (auto nul = text->find('\0'); nul != std::string::npos)
    return Error{fmt::format("{}: a binary file (a NUL byte at offset {}), not C++ source",
                             path.string(), nul)};
  if (auto bad = first_invalid_utf8(*text); bad != std::string::npos)
    return Error{
        fmt::format("{}: not UTF-8 text (an invalid byte at offset {}); save the source as UTF-8",
                    path.string(), bad)};
  return text;
}

namespace {

// Whether `path` is the same file as one inside `dir` (a hard link, or the file itself).
bool same_file_inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && std::filesystem::equivalent(path, it->path(), ec)) return true;
  return false;
}

}  // namespace

Result<std::string> read_source(const std::filesystem::path& path,
                                const std::filesystem::path& private_dir) {
  std::error_code ec;
  const auto real = std::filesystem::canonical(path, ec);
  const auto root = std::filesystem::weakly_canonical(private_dir, ec);
  if (!real.empty() && !root.empty()) {
    auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    const bool inside = r == root.end();
    const auto links = std::filesystem::hard_link_count(real, ec);
    if (inside || (!ec && links > 1 && same_file_inside(real, root)))
      return Error{
          fmt::format("{}: is one of kforge's own files (in {}): a kernel source may not "
                      "be kforge's secrets or reference outputs",
                      path.string(), root.string())};
  }
  return read_source(path);
}

Status write_atomic(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp{}.{}", ::getpid(), std::random_device{}());
  // A failed write (a full disk, a file-size limit) leaves nothing behind: neither the target
  // nor the temporary, which a cache would otherwise keep as a half entry.
  auto failed = [&](const char* what) {
    Error e{
        fmt::format("{}: {}: {} (is the disk full?)", path.string(), what, std::strerror(errno))};
    std::filesystem::remove(tmp, ec);
    return e;
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return failed("cannot write");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (out.fail()) return failed("write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Error{fmt::format("{}: cannot rename into place: {}", path.string(), ec.message())};
  }
  return ok_status();
}

Status ensure_dir(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Error{fmt::format("{}: cannot create directory: {}", path.string(), ec.message())};
  return ok_status();
}

}  // namespace kforge::core
