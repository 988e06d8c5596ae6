// Reads the candidate's dynamic section and compares it with the exports of the allowed libraries.
#include "kforge/toolchain/link_check.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>

#include "kforge/toolchain/elf_symbols.h"

namespace kforge::toolchain {
namespace {

const char* kLibDirs[] = {"/lib/x86_64-linux-gnu",
                          "/usr/lib/x86_64-linux-gnu",
                          "/lib64",
                          "/usr/lib64",
                          "/usr/local/lib",
                          "/usr/lib"};

std::vector<std::filesystem::path> search_dirs(const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> dirs(std::begin(kLibDirs), std::end(kLibDirs));
  dirs.insert(dirs.end(), extra.begin(), extra.end());
  return dirs;
}

std::filesystem::path find_library(const std::string& soname,
                                   const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    std::filesystem::path p = dir / soname;
    if (std::filesystem::exists(p)) return p;
  }
  return {};
}

// "dnnl" → "libdnnl.so.2" as installed; a full soname passes through.
std::string soname_for(const std::string& lib, const std::vector<std::filesystem::path>& dirs) {
  if (lib.rfind("lib", 0) == 0 && lib.find(".so") != std::string::npos) return lib;
  std::string prefix = "lib" + lib + ".so.";
  std::string best;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      // The shortest versioned name is the soname (libdnnl.so.2, not libdnnl.so.2.6).
      if (name.rfind(prefix, 0) == 0 && (best.empty() || name.size() < best.size())) best = name;
    }
  }
  return best.empty() ? "lib" + lib + ".so" : best;
}

// Exported names of one library, read once per process.
const std::set<std::string>& exports_of(const std::string& soname,
                                        const std::vector<std::filesystem::path>& dirs) {
  static std::mutex mu;
  static std::map<std::string, std::set<std::string>> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(soname);
  if (it != cache.end()) return it->second;
  std::set<std::string> names;
  if (auto path = find_library(soname, dirs); !path.empty())
    if (auto elf = read_elf_dynamic(path))
      for (const auto& s : elf->defined) names.insert(s.name);
  return cache.emplace(soname, std::move(names)).first->second;
}

std::string join_first(const std::vector<std::string>& items, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < n; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > n) s += fmt::format(" and {} more", items.size() - n);
  return s;
}

}  // namespace

const std::vector<std::string>& runtime_sonames() {
  static const std::vector<std::string> names = {
      "libc.so.6",     "libm.so.6",    "libmvec.so.1",        "libstdc++.so.6",
      "libgcc_s.so.1", "libgomp.so.1", "ld-linux-x86-64.so.2"};
  return names;
}

LinkVerdict check_link(const std::filesystem::path& so, const LinkPolicy& policy,
                       const std::string& entry) {
  auto elf = read_elf_dynamic(so);
  if (!elf) return {LinkProblem::unreadable, elf.error().message};

  const auto dirs = search_dirs(policy.lib_dirs);
  std::vector<std::string> allowed = runtime_sonames();
  for (const auto& lib : policy.extra_libs) allowed.push_back(soname_for(lib, dirs));
  std::set<std::string> allowed_set(allowed.begin(), allowed.end());

  std::vector<std::string> refused_libs;
  for (const auto& needed : elf->needed)
    if (!allowed_set.count(needed)) refused_libs.push_back(needed);
  if (!refused_libs.empty())
    return {
        LinkProblem::library_refused,
        fmt::format("links against {}: a kernel may use only the C/C++ runtime and OpenMP "
                    "(libc, libm, libstdc++, libgcc_s, libgomp){}",
                    join_first(refused_libs, 4),
                    policy.extra_libs.empty() ? "" : " and " + join_first(policy.extra_libs, 8))};

  bool has_entry = false;
  for (const auto& s : elf->defined) has_entry = has_entry || (s.name == entry && s.function);
  if (!has_entry)
    return {LinkProblem::missing_entry,
            fmt::format("the shared object does not define `{}`: define it with the signature from "
                        "kforge_task.h",
                        entry)};

  std::set<std::string> provided;
  for (const auto& lib : allowed) {
    const auto& names = exports_of(lib, dirs);
    provided.insert(names.begin(), names.end());
  }
  std::set<std::string> runtime_exports;
  for (const auto& lib : runtime_sonames()) {
    const auto& names = exports_of(lib, dirs);
    runtime_exports.insert(names.begin(), names.end());
  }

  std::vector<std::string> shadowing;
  for (const auto& s : elf->defined) {
    bool mangled = s.name.rfind("_Z", 0) == 0;
    if (runtime_exports.count(s.name) && (!mangled || !s.weak)) shadowing.push_back(s.name);
  }
  if (!shadowing.empty())
    return {LinkProblem::shadows_system,
            fmt::format("defines {}, which the C/C++ runtime already provides: a kernel may not "
                        "replace system functions",
                        join_first(shadowing, 4))};

  std::vector<std::string> unresolved;
  for (const auto& s : elf->undefined)
    if (!s.weak && !provided.count(s.name)) unresolved.push_back(s.name);
  if (!unresolved.empty())
    return {LinkProblem::symbol_refused,
            fmt::format("calls {}, which no allowed library provides (BLAS, oneDNN and libtorch "
                        "are refused for candidates; "
                        "an undefined function of your own is reported here too)",
                        join_first(unresolved, 4))};
  return {};
}

}  // namespace kforge::toolchain
