// The compiler's environment, Landlock view and limits, and how a limit hit reads in the log.
#include "kforge/toolchain/compile_sandbox.h"

#include <fmt/format.h>

namespace kforge::toolchain {
namespace {

// The system toolchain, found by tracing g++ 12 and clang 14 (Debian 12) under Landlock:
//   /usr/bin            the drivers, as, ld
//   /usr/lib, /usr/lib64, /usr/libexec   cc1plus, collect2, libgcc, the libraries linked
//                        (libtorch, oneDNN, OpenBLAS, libgomp); clang's resource dir; the loader
//   /usr/include        system and library headers (ATen for baselines)
//   /usr/local/include, /usr/local/lib   on gcc's and ld's default search paths
//   /bin, /lib, /lib64  the same on systems without a merged /usr (symlinks into /usr here)
// Not /proc, /sys, /dev (but /dev/null), /etc (but the files below), /home, /tmp, /opt.
constexpr const char* kSystemDirs[] = {
    "/usr/bin",           "/usr/lib",       "/usr/lib64", "/usr/libexec", "/usr/include",
    "/usr/local/include", "/usr/local/lib", "/bin",       "/lib",         "/lib64"};
// ld.so.cache: every program's loader reads it (without it, it falls back to a slow search);
// the release files: clang picks the distribution's linker defaults from them.
constexpr const char* kSystemFiles[] = {"/etc/ld.so.cache",    "/etc/os-release",
                                        "/etc/lsb-release",    "/etc/debian_version",
                                        "/etc/redhat-release", "/etc/SuSE-release"};

bool contains(const std::string& text, std::string_view what) {
  return text.find(what) != std::string::npos;
}

std::string mib(std::uint64_t bytes) {
  if (bytes % (1ULL << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  return fmt::format("{} MiB", bytes >> 20);
}

}  // namespace

std::vector<std::string> compile_environment(const std::filesystem::path& scratch) {
  return {"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + scratch.string(), "TMPDIR=" + scratch.string()};
}

core::LandlockView compile_view(const CompileSandbox& sandbox) {
  core::LandlockView view;
  for (const char* d : kSystemDirs) view.read_dirs.emplace_back(d);
  for (const auto& d : sandbox.toolchain_dirs) view.read_dirs.push_back(d);
  for (const auto& d : sandbox.trusted_reads) view.read_dirs.push_back(d);
  for (const char* f : kSystemFiles) view.read_files.emplace_back(f);
  // A compiler named by path (KFORGE_CXX=/opt/…/g++, a wrapper script) must at least be runnable.
  if (sandbox.compiler.has_parent_path()) view.read_files.push_back(sandbox.compiler);
  view.write_dirs.push_back(sandbox.scratch);
  view.write_files.emplace_back("/dev/null");  // -o /dev/null (the vectorization report)
  return view;
}

core::ProcessOptions sandboxed(const CompileSandbox& sandbox, std::size_t capture_limit) {
  core::ProcessOptions o;
  o.timeout = sandbox.timeout;
  o.cancel = sandbox.cancel;
  o.cwd = sandbox.scratch;
  o.capture_limit = capture_limit;
  o.clean_env = compile_environment(sandbox.scratch);
  o.limits = {.file_size = sandbox.limits.output_bytes,
              .address_space = sandbox.limits.address_space,
              .core_dumps = false};
  o.landlock = compile_view(sandbox);
  return o;
}

std::string sandbox_limit_hit(const std::string& out, const SandboxLimits& limits) {
  // SIGXFSZ kills the writer: gcc says "... terminated with signal 25 [File size limit exceeded]";
  // a writer that ignores the signal fails with EFBIG, "File too large".
  if (limits.output_bytes &&
      (contains(out, "File size limit exceeded") || contains(out, "File too large")))
    return fmt::format(
        "the compiler's output exceeded {} (RLIMIT_FSIZE): a huge initialized array, or an "
        "embedded file? "
        "Keep large buffers uninitialized or allocate them at run time",
        mib(limits.output_bytes));
  if (limits.address_space &&
      (contains(out, "out of memory allocating") || contains(out, "virtual memory exhausted") ||
       contains(out, "Cannot allocate memory") || contains(out, "std::bad_alloc")))
    return fmt::format(
        "the compiler ran out of its {} of address space (RLIMIT_AS): a template or constexpr "
        "blow-up, or a huge "
        "initializer?",
        mib(limits.address_space));
  return {};
}

std::string sandbox_refusal_note(const std::string& out) {
  // Landlock refuses with EACCES; gcc says so, but as reports any unopenable .incbin or .include
  // as "file not found".
  if (!contains(out, "Permission denied") && !contains(out, "Error: file not found")) return {};
  return "note: the compiler runs in a sandbox: it reads only the system headers and libraries, "
         "kforge_task.h and "
         "the kernel's own file";
}

}  // namespace kforge::toolchain
