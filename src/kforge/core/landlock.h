#pragma once
// Landlock confinement for a child process, in two halves. The parent prepares a ruleset (opens
// each path, fills the rules: allocation and errors happen here, with messages); a forked child
// applies it just before exec with two raw system calls (prctl, landlock_restrict_self), which
// are async-signal-safe, so a multi-threaded kforge may fork and confine safely.

#include <filesystem>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::core {

// What the confined process may touch; everything else on the filesystem is refused (EACCES).
// A path that does not exist is skipped: it grants nothing. A file named in a *_dirs list gets
// the file rights of that list.
struct LandlockView {
  std::vector<std::filesystem::path> read_dirs;   // trees: read, list, execute (system toolchain)
  std::vector<std::filesystem::path> read_files;  // single files: read, execute
  std::vector<std::filesystem::path>
      write_dirs;  // trees: read, list, create, write, remove (no execute)
  std::vector<std::filesystem::path>
      write_files;        // single files: read, write, truncate (/dev/null)
  bool deny_tcp = true;   // no TCP bind or connect (Landlock ABI >= 4; older kernels cannot say)
  bool scope_ipc = true;  // no signals or abstract unix sockets beyond the sandbox (ABI >= 6)
};

// The Landlock ABI this kernel offers; 0 when it has none (too old, or disabled at boot).
int landlock_abi();

// A filled ruleset, ready for a child to apply. Move-only; owns its descriptor (close-on-exec).
class LandlockRuleset {
 public:
  // Builds the ruleset for `view`. abi() == 0 when the kernel has no Landlock: apply() then
  // confines nothing, and the caller decides whether that is acceptable.
  static Result<LandlockRuleset> prepare(const LandlockView& view);

  LandlockRuleset(LandlockRuleset&& other) noexcept;
  LandlockRuleset& operator=(LandlockRuleset&& other) noexcept;
  LandlockRuleset(const LandlockRuleset&) = delete;
  LandlockRuleset& operator=(const LandlockRuleset&) = delete;
  ~LandlockRuleset();

  int abi() const { return abi_; }

  // Confines the calling process (and all it will exec or fork) for good: sets no_new_privs and
  // restricts itself. Async-signal-safe. Returns 0, or the errno of the failed call.
  int apply() const noexcept;

 private:
  LandlockRuleset(int fd, int abi) : fd_(fd), abi_(abi) {}
  int fd_ = -1;
  int abi_ = 0;
};

}  // namespace kforge::core
