// The device process's walls: its Landlock view and its seccomp filter (cuda_sandbox.h says why
// each rule is there).
#include "kforge/runner/cuda_sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <regex>
#include <sstream>

#include "kforge/runner/sandbox.h"

extern char** environ;

namespace kforge::runner {
namespace {

// The resource manager's requests: _IOWR('F', nr, size), type in bits 8-15.
constexpr scmp_datum_t kNvIoctlTypeMask = 0xff00;
constexpr scmp_datum_t kNvIoctlType = static_cast<scmp_datum_t>('F') << 8;
// nvidia-uvm's requests are plain numbers (UVM_IOCTL_BASE(i) is i; its test requests start at
// 200), except the first and last a descriptor sees.
constexpr scmp_datum_t kUvmIoctlLimit = 0x200;
constexpr scmp_datum_t kUvmInitialize = 0x30000001;
constexpr scmp_datum_t kUvmDeinitialize = 0x30000002;
constexpr scmp_datum_t kTcgets = 0x5401;  // isatty()

#if defined(__x86_64__)
constexpr const char* kLoader = "/lib64/ld-linux-x86-64.so.2";
#elif defined(__aarch64__)
constexpr const char* kLoader = "/lib/ld-linux-aarch64.so.1";
#else
constexpr const char* kLoader = "";
#endif

bool is_nvidia_node(const std::string& name) {
  if (name == "nvidiactl" || name == "nvidia-uvm" || name == "nvidia-uvm-tools") return true;
  return name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
         std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int add_device_rules(scmp_filter_ctx ctx, int channel_fd) {
  int r = add_common_rules(ctx, channel_fd, true);
  auto rule = [&](std::uint32_t action, int nr, unsigned count, auto... cmp) {
    r |= seccomp_rule_add(ctx, action, nr, count, cmp...);
  };
  // Files: reading and writing existing ones (Landlock names which), never creating, truncating
  // or appending.
  constexpr scmp_datum_t kShape = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
  for (scmp_datum_t mode : {scmp_datum_t{O_RDONLY}, scmp_datum_t{O_RDWR}}) {
    rule(SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, kShape, mode));
    rule(SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, kShape, mode));
  }
  for (int nr : {SCMP_SYS(read),          SCMP_SYS(pread64),    SCMP_SYS(close),
                 SCMP_SYS(lseek),         SCMP_SYS(newfstatat), SCMP_SYS(statx),
                 SCMP_SYS(access),        SCMP_SYS(faccessat),  SCMP_SYS(faccessat2),
                 SCMP_SYS(readlink),      SCMP_SYS(readlinkat), SCMP_SYS(getcwd),
                 SCMP_SYS(getdents64),    SCMP_SYS(fstatfs),    SCMP_SYS(uname),
                 SCMP_SYS(getuid),        SCMP_SYS(geteuid),    SCMP_SYS(getgid),
                 SCMP_SYS(getegid),       SCMP_SYS(write),      SCMP_SYS(writev),
                 SCMP_SYS(poll),          SCMP_SYS(ppoll),      SCMP_SYS(epoll_create1),
                 SCMP_SYS(epoll_ctl),     SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
                 SCMP_SYS(eventfd2),      SCMP_SYS(pipe2),      SCMP_SYS(fcntl),
                 SCMP_SYS(dup),           SCMP_SYS(mbind),      SCMP_SYS(get_mempolicy),
                 SCMP_SYS(set_mempolicy), SCMP_SYS(mlock),      SCMP_SYS(munlock),
                 SCMP_SYS(sigaltstack)})
    rule(SCMP_ACT_ALLOW, nr, 0);
  // The runner's replies to kforge (send with MSG_NOSIGNAL): on the channel only.
  rule(SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1,
       SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(channel_fd)));
  // The driver's ioctls, and isatty().
  rule(SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
       SCMP_A1(SCMP_CMP_MASKED_EQ, kNvIoctlTypeMask, kNvIoctlType));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_LT, kUvmIoctlLimit));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, kUvmInitialize));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, kUvmDeinitialize));
  rule(SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, kTcgets));
  // Memory: as kforge-run's kernel filter. Device memory is mapped shared and never executable.
  rule(SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2,
       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC),
       SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  // Thread names; signal handlers for anything but SIGSYS.
  for (scmp_datum_t op : {scmp_datum_t{PR_SET_NAME}, scmp_datum_t{PR_GET_NAME}})
    rule(SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, op));
  rule(SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1, SCMP_A0(SCMP_CMP_NE, SIGSYS));
  // Refused without killing the process: calls the driver may make and do without.
  rule(SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
  rule(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(memfd_create), 0);
  return r;
}

// Builds the filter and hands it to `use` (load, or export).
Status with_filter(int channel_fd, const std::function<int(scmp_filter_ctx)>& use) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) return Error{"seccomp_init failed for the device process's filter"};
  int r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  r |= seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);  // set once by hand; prctl is limited later
  r |= add_device_rules(ctx, channel_fd);
  if (r == 0) r = use(ctx);
  seccomp_release(ctx);
  if (r != 0)
    return Error{
        fmt::format("building the device process's seccomp filter failed: {}", std::strerror(-r))};
  return ok_status();
}

void on_forbidden_call(int, siginfo_t* info, void*) {
  // Async-signal-safe: fixed buffers, write(2), then die of the same signal.
  char line[128];
  const long nr = info->si_syscall;
  int n = std::snprintf(line, sizeof line, "kforge-run-cuda: forbidden system call %s (%ld)\n",
                        syscall_name(nr), nr);
  if (n > 0) [[maybe_unused]]
    auto w = ::write(2, line, static_cast<std::size_t>(n));
  ::signal(SIGSYS, SIG_DFL);
  ::raise(SIGSYS);
}

}  // namespace

std::vector<std::filesystem::path> nvidia_device_nodes(const std::filesystem::path& dev) {
  std::vector<std::filesystem::path> nodes;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dev, ec))
    if (is_nvidia_node(e.path().filename().string())) nodes.push_back(e.path());
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

core::LandlockView cuda_runner_view(const CudaWallsOptions& o) {
  core::LandlockView v;
  // What the driver and the C library read about the machine and the process. /sys/devices:
  // the GPU's PCI node (the /sys/bus/pci links resolve there) and the NUMA topology.
  v.read_dirs = {"/proc/driver/nvidia", "/sys/bus/pci/devices", "/sys/devices",
                 o.dev / "nvidia-caps"};
  v.read_files = {"/proc/cpuinfo",
                  "/proc/meminfo",
                  "/proc/self/maps",
                  "/proc/self/stat",
                  "/proc/self/status",
                  "/proc/sys/vm/overcommit_memory",
                  "/proc/devices",
                  "/etc/ld.so.cache",
                  o.dev / "null",
                  o.dev / "urandom",
                  o.library};
  for (const auto& d : o.dependencies) v.read_files.push_back(d);
  // Read-write: the device nodes only (ioctl on them included).
  v.write_files = nvidia_device_nodes(o.dev);
  if (o.trusted) {
    // cuDNN, cuBLAS and libtorch open libraries of their own as they go.
    for (const char* d : {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"})
      v.read_dirs.push_back(d);
    // And the folders around what it links: a wheel's nvidia/<lib>/lib beside its siblings.
    for (const auto& d : o.dependencies)
      for (auto dir = d.parent_path(); auto up : {0, 1, 2}) {
        if (dir.empty() || dir == dir.root_path()) break;
        v.read_dirs.push_back(dir);
        (void)up;
        dir = dir.parent_path();
      }
  }
  return v;
}

Result<std::vector<std::filesystem::path>> resolve_dependencies(
    const std::filesystem::path& library) {
  if (!*kLoader) return Error{"resolving a library's dependencies: unknown loader on this CPU"};
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string loader = kLoader, list = "--list", lib = library.string();
  char* argv[] = {loader.data(), list.data(), lib.data(), nullptr};
  pid_t pid = 0;
  int err = posix_spawn(&pid, kLoader, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (err != 0) {
    ::close(out[0]);
    return Error{fmt::format("{} --list: {}", kLoader, std::strerror(err))};
  }
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Error{fmt::format("{} --list {} failed:\n{}", kLoader, lib, text.substr(0, 1000))};
  // "\tlibcudart.so.13 => /usr/local/cuda/lib64/libcudart.so.13 (0x...)"; "not found" is an error.
  static const std::regex line(R"(^\s*(\S+) => (\S+)(?: \(0x[0-9a-f]+\))?\s*$)");
  std::vector<std::filesystem::path> deps;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    if (m[2] == "not") return Error{fmt::format("{}: {} is not found", lib, m[1].str())};
    deps.emplace_back(m[2].str());
  }
  return deps;
}

Status install_cuda_kernel_filter(int channel_fd) {
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return with_filter(channel_fd, [](scmp_filter_ctx ctx) { return seccomp_load(ctx); });
}

Result<std::string> cuda_kernel_filter_text(int channel_fd) {
  int fd = ::memfd_create("kforge-filter", MFD_CLOEXEC);
  if (fd < 0) return Error{fmt::format("memfd_create: {}", std::strerror(errno))};
  auto built =
      with_filter(channel_fd, [fd](scmp_filter_ctx ctx) { return seccomp_export_pfc(ctx, fd); });
  std::string text;
  if (built) {
    ::lseek(fd, 0, SEEK_SET);
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (!built) return built.error();
  return text;
}

void report_forbidden_calls() {
  prepare_syscall_names();
  struct sigaction sa {};
  sa.sa_sigaction = on_forbidden_call;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSYS, &sa, nullptr);
}

}  // namespace kforge::runner
