// Landlock rulesets: ABI probing, access masks per ABI, path rules.
#include "kforge/core/landlock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace kforge::core {
namespace {

// The attribute struct and rights up to ABI 6, declared here because older kernel headers stop
// at ABI 2. The kernel reads only the leading fields that the size passed says are there.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};
constexpr std::uint64_t kFsExecute = 1ULL << 0;
constexpr std::uint64_t kFsWriteFile = 1ULL << 1;
constexpr std::uint64_t kFsReadFile = 1ULL << 2;
constexpr std::uint64_t kFsReadDir = 1ULL << 3;
constexpr std::uint64_t kFsRemoveDir = 1ULL << 4;
constexpr std::uint64_t kFsRemoveFile = 1ULL << 5;
constexpr std::uint64_t kFsMakeDir = 1ULL << 7;
constexpr std::uint64_t kFsMakeReg = 1ULL << 8;
constexpr std::uint64_t kFsRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kFsTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;  // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;   // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;
// The rights that make sense on a file (the kernel rejects directory rights on a file rule).
constexpr std::uint64_t kFileRights =
    kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;

// Every filesystem right this ABI knows: all are handled, so whatever no rule grants is denied.
std::uint64_t handled_fs(int abi) {
  std::uint64_t all = (1ULL << 13) - 1;  // ABI 1: EXECUTE .. MAKE_SYM
  if (abi >= 2) all |= kFsRefer;
  if (abi >= 3) all |= kFsTruncate;
  if (abi >= 5) all |= kFsIoctlDev;
  return all;
}

Status add_path_rule(int ruleset, const std::filesystem::path& path, std::uint64_t access,
                     std::uint64_t handled) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return ok_status();  // grants nothing: safe to skip
    return Error{fmt::format("opening {}: {}", path.string(), std::strerror(errno))};
  }
  struct stat st {};
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= kFileRights;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access & handled;
  rule.parent_fd = fd;
  long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int saved = errno;
  close(fd);
  if (r != 0)
    return Error{fmt::format("landlock_add_rule({}): {}", path.string(), std::strerror(saved))};
  return ok_status();
}

Status add_rules(int ruleset, const std::vector<std::filesystem::path>& paths, std::uint64_t access,
                 std::uint64_t handled) {
  for (const auto& p : paths)
    if (auto s = add_path_rule(ruleset, p, access, handled); !s) return s;
  return ok_status();
}

}  // namespace

int landlock_abi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

Result<LandlockRuleset> LandlockRuleset::prepare(const LandlockView& view) {
  int abi = landlock_abi();
  if (abi == 0) return LandlockRuleset(-1, 0);
  RulesetAttr attr{handled_fs(abi), 0, 0};
  std::size_t attr_size = sizeof(std::uint64_t);
  if (abi >= 4 && view.deny_tcp) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // handled with no rule: all refused
    attr_size = 2 * sizeof(std::uint64_t);
  }
  if (abi >= 6 && view.scope_ipc) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    attr_size = sizeof(RulesetAttr);
  }
  int fd = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (fd < 0)
    return Error{fmt::format("landlock_create_ruleset (ABI {}): {}", abi, std::strerror(errno))};
  LandlockRuleset ruleset(fd, abi);  // closes fd on every return below

  const std::uint64_t handled = attr.handled_access_fs;
  const std::uint64_t read_dir = kFsReadFile | kFsReadDir | kFsExecute;
  const std::uint64_t read_file = kFsReadFile | kFsExecute;
  // Writable trees are not executable: nothing written there may be run.
  const std::uint64_t write_dir = kFsReadFile | kFsReadDir | kFsWriteFile | kFsRemoveDir |
                                  kFsRemoveFile | kFsMakeDir | kFsMakeReg | kFsRefer | kFsTruncate;
  const std::uint64_t write_file = kFsReadFile | kFsWriteFile | kFsTruncate | kFsIoctlDev;
  for (auto [paths, access] :
       {std::pair{&view.read_dirs, read_dir}, std::pair{&view.read_files, read_file},
        std::pair{&view.write_dirs, write_dir}, std::pair{&view.write_files, write_file}})
    if (auto s = add_rules(fd, *paths, access, handled); !s) return s.error();
  return ruleset;
}

LandlockRuleset::LandlockRuleset(LandlockRuleset&& other) noexcept
    : fd_(other.fd_), abi_(other.abi_) {
  other.fd_ = -1;
}

LandlockRuleset& LandlockRuleset::operator=(LandlockRuleset&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    abi_ = other.abi_;
    other.fd_ = -1;
  }
  return *this;
}

LandlockRuleset::~LandlockRuleset() {
  if (fd_ >= 0) close(fd_);
}

int LandlockRuleset::apply() const noexcept {
  if (fd_ < 0) return 0;  // no Landlock on this kernel: prepare() said so with abi() == 0
  // no_new_privs lets an unprivileged process restrict itself, and keeps set-uid programs from
  // escaping the rules.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (syscall(SYS_landlock_restrict_self, fd_, 0) != 0) return errno;
  return 0;
}

}  // namespace kforge::core
