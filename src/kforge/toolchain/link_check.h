#pragma once
// The link check of the evaluation contract: a candidate may import only from the C/C++ runtime
// and OpenMP, and may not export a symbol that replaces one of theirs (a kernel that defines
// clock_gettime could fake its own timing). Experts and users may allow more libraries per run.

#include <filesystem>
#include <string>
#include <vector>

namespace kforge::toolchain {

struct LinkPolicy {
  // Extra libraries allowed beyond the runtime, by short name ("dnnl", "openblas") or soname.
  std::vector<std::string> extra_libs;
  // Folders to find those libraries in besides the system's (the CUDA toolkit's lib64).
  std::vector<std::filesystem::path> lib_dirs;
};

enum class LinkProblem {
  none,
  missing_entry,
  library_refused,
  symbol_refused,
  shadows_system,
  unreadable
};

struct LinkVerdict {
  LinkProblem problem = LinkProblem::none;
  std::string reason;  // one sentence a human (or the debugger agent) can act on
  bool ok() const { return problem == LinkProblem::none; }
};

LinkVerdict check_link(const std::filesystem::path& shared_object, const LinkPolicy& policy,
                       const std::string& entry = "kernel");

// The libraries always allowed, by soname.
const std::vector<std::string>& runtime_sonames();

}  // namespace kforge::toolchain
