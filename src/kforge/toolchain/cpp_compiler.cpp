// Compiles in a private scratch folder, sandboxed, then moves the artifact into the cache under
// its content key. Failed compiles are cached too: re-evaluating a broken kernel costs nothing.
#include "kforge/toolchain/cpp_compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/python_env.h"
#include "kforge/core/record_lock.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/compile_cache.h"
#include "kforge/toolchain/compile_scratch.h"

namespace kforge::toolchain {

std::string_view role_name(Role role) {
  switch (role) {
    case Role::candidate:
      return "candidate";
    case Role::reference:
      return "reference";
    case Role::baseline:
      return "baseline";
    case Role::expert:
      return "expert";
    case Role::generator:
      return "generator";
  }
  return "?";
}

namespace {

// Baselines include ATen; this header is precompiled once per compiler and flag set.
constexpr const char* kTorchPchHeader = "#include <ATen/ATen.h>\n";
// Part of every cache key: an artifact built before the sandbox may hold what it now refuses.
constexpr const char* kSandboxGeneration = "sandbox 1";

std::vector<std::string> baseline_flags() {
  return {"-std=c++20", "-O2", "-fPIC", "-fopenmp", "-w"};
}

bool trusted(Role role) { return role != Role::candidate; }

std::string host_cpu_signature() {
  auto text = core::read_text("/proc/cpuinfo");
  if (!text) return "unknown-cpu";
  std::string model, flags;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  return model + "|" + flags;
}

}  // namespace

CppCompiler::CppCompiler(CppCompilerOptions options)
    : options_(std::move(options)),
      torch_(core::find_torch(
          options_.python_env.empty() ? core::python_env_dir() : options_.python_env,
          options_.system_prefix)) {
  if (options_.cxx.empty()) options_.cxx = "g++";
  // The compiler runs in its scratch folder: a relative path would resolve there.
  if (options_.cxx.find('/') != std::string::npos)
    options_.cxx = std::filesystem::absolute(options_.cxx).string();
}

std::vector<std::string> CppCompiler::flags_for(Role role) const {
  if (role == Role::baseline) {
    auto f = baseline_flags();
    // A wheel's headers are not in the compiler's path; its libraries use the C++11 ABI (every
    // wheel since torch 2.7), whatever this compiler's default.
    if (torch_ && torch_->wheel) f.push_back("-D_GLIBCXX_USE_CXX11_ABI=1");
    if (torch_)
      for (const auto& dir : torch_->include_dirs) f.push_back("-I" + dir.string());
    return f;
  }
  std::vector<std::string> f = {"-std=c++20", "-fPIC", "-fopenmp", "-march=native",
                                "-fvisibility=hidden"};
  if (role == Role::candidate || role == Role::expert) {
    f.push_back("-O3");
    f.push_back("-g");  // line tables for the profiler's hot spots; the generated code is the same
    f.push_back("-Wall");
  } else {
    f.push_back("-O2");  // references and generators: plain, obviously right code
  }
  return f;
}

std::vector<std::filesystem::path> CppCompiler::runtime_reads(Role role) const {
  if (role != Role::baseline || !torch_) return {};
  return torch_->runtime_dirs;
}

std::vector<std::string> CppCompiler::torch_link_flags() const {
  std::vector<std::string> f;
  if (torch_ && torch_->wheel) {
    // The run path finds the wheel's libtorch when kforge-run loads the baseline: the kernel
    // process gets no LD_LIBRARY_PATH.
    const auto lib = torch_->lib_dir.string();
    f.insert(f.end(), {"-L" + lib, "-Wl,-rpath," + lib});
  }
  f.insert(f.end(), {"-ltorch_cpu", "-lc10"});
  return f;
}

std::string CppCompiler::identity() {
  std::lock_guard lock(mu_);
  if (identity_.empty()) {
    auto r =
        core::run_process({options_.cxx, "--version"},
                          {.timeout = std::chrono::seconds(20),
                           .clean_env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C"}});
    version_ = r.out.substr(0, r.out.find('\n'));
    identity_ = options_.cxx + "|" + version_ + "|" + host_cpu_signature();
  }
  return identity_;
}

std::string CppCompiler::version() {
  identity();
  std::lock_guard lock(mu_);
  return version_.empty() ? options_.cxx : version_;
}

std::string CppCompiler::include_dir_digest() {
  std::lock_guard lock(mu_);
  if (include_digest_.empty())
    include_digest_ =
        options_.include_dir.empty() ? "no include dir" : tree_digest(options_.include_dir);
  return include_digest_;
}

const std::vector<std::pair<std::string, std::string>>& CppCompiler::public_headers() {
  std::lock_guard lock(mu_);
  if (!public_headers_) {
    public_headers_.emplace();
    for (const char* name : kPublicHeaders) {
      auto text = core::read_text(options_.include_dir / name);
      if (!options_.include_dir.empty() && text) public_headers_->emplace_back(name, *text);
    }
  }
  return *public_headers_;
}

Status CppCompiler::write_public_headers(const std::filesystem::path& scratch) {
  for (const auto& [name, text] : public_headers()) {
    std::error_code ec;
    std::filesystem::create_directories((scratch / name).parent_path(), ec);
    if (auto wrote = core::write_atomic(scratch / name, text); !wrote) return wrote;
  }
  return ok_status();
}

Result<std::filesystem::path> CppCompiler::new_scratch() {
  auto root = private_scratch_root(options_.scratch_root);
  if (!root) return root.error();
  return make_scratch(*root);
}

CompileSandbox CppCompiler::sandbox_for(Role role, const std::filesystem::path& scratch,
                                        const std::filesystem::path& pch_dir) const {
  CompileSandbox sb{
      .scratch = scratch, .compiler = options_.cxx, .toolchain_dirs = options_.toolchain_dirs};
  sb.limits = trusted(role) ? options_.trusted_limits : options_.candidate_limits;
  sb.timeout = role == Role::baseline ? options_.baseline_timeout : options_.timeout;
  sb.cancel = options_.cancel;
  // Candidates read neither bench/include nor anything else of the repository or the state folder.
  if (trusted(role) && !options_.include_dir.empty())
    sb.trusted_reads.push_back(options_.include_dir);
  if (trusted(role) && !pch_dir.empty()) sb.trusted_reads.push_back(pch_dir);
  for (const auto& dir : runtime_reads(role)) sb.trusted_reads.push_back(dir);
  return sb;
}

std::filesystem::path CppCompiler::precompiled_torch_header(std::string& error) {
  core::Hasher h;
  h.add(identity()).add(kTorchPchHeader);
  if (torch_ && torch_->wheel) h.add(torch_->version);
  for (const auto& f : flags_for(Role::baseline)) h.add(f);
  auto dir = options_.cache_dir / "pch" / h.hex();
  auto header = dir / "kforge_torch.h";
  if (std::filesystem::exists(dir / "kforge_torch.h.gch")) return header;
  // Precompiling ATen takes a minute of CPU: a second process that needs it meanwhile (two
  // evaluations, a search's jobs) waits for the first one's instead of making its own.
  std::error_code ec;
  std::filesystem::create_directories(dir.parent_path(), ec);  // unlocked below if it failed
  core::RecordLock lock(dir);
  if (std::filesystem::exists(dir / "kforge_torch.h.gch")) return header;
  auto scratch = new_scratch();
  if (!scratch) {
    error = "precompiling ATen: " + scratch.error().message;
    return {};
  }
  if (auto st = core::write_atomic(*scratch / "kforge_torch.h", kTorchPchHeader); !st) {
    error = "precompiling ATen: " + st.error().message;
    return {};
  }
  std::vector<std::string> argv = {options_.cxx};
  for (const auto& f : flags_for(Role::baseline)) argv.push_back(f);
  for (const auto& a : {"-x", "c++-header", "kforge_torch.h", "-o", "kforge_torch.h.gch"})
    argv.push_back(a);
  auto sandbox = sandbox_for(Role::baseline, *scratch, {});
  auto r = core::run_process(argv, sandboxed(sandbox, 256 << 10));
  if (!r.success()) {
    auto why = sandbox_limit_hit(r.err + r.out, sandbox.limits);
    error = fmt::format("precompiling ATen failed ({}): {}{}", r.describe(),
                        why.empty() ? "" : why + ": ", r.err.substr(0, 2000));
    std::filesystem::remove_all(*scratch);
    return {};
  }
  if (auto stored = publish_scratch(*scratch, dir); !stored) {  // a concurrent winner is fine
    error = "precompiling ATen: " + stored.error().message;
    return {};
  }
  return header;
}

std::vector<std::string> CppCompiler::compile_argv(const CompileRequest& request,
                                                   const std::string& file) const {
  std::vector<std::string> argv = {options_.cxx};
  for (const auto& f : flags_for(request.role)) argv.push_back(f);
  for (const auto& f : request.extra_flags) argv.push_back(f);
  argv.push_back("-I.");
  if (trusted(request.role) && !options_.include_dir.empty())
    argv.push_back("-I" + options_.include_dir.string());
  return argv;
}

std::string CppCompiler::cache_key(const CompileRequest& request) {
  core::Hasher key;
  key.add(identity())
      .add(role_name(request.role))
      .add(request.source)
      .add(request.file_name)
      .add(request.task_header);
  for (const auto& f : flags_for(request.role)) key.add(f);
  for (const auto& f : request.extra_flags) key.add(f);
  // A new torch in the same folder must miss the cache: the baseline links what it holds. (The
  // system's libtorch keeps the keys it always had.)
  if (request.role == Role::baseline && torch_ && torch_->wheel) {
    key.add(torch_->version);
    for (const auto& f : torch_link_flags()) key.add(f);
  }
  if (!options_.include_dir.empty()) key.add(options_.include_dir.string());
  if (trusted(request.role)) key.add(include_dir_digest());
  for (const auto& [name, text] : public_headers()) key.add(name).add(text);
  const auto& limits = trusted(request.role) ? options_.trusted_limits : options_.candidate_limits;
  key.add(fmt::format("{} fsize {} as {}", kSandboxGeneration, limits.output_bytes,
                      limits.address_space));
  return key.hex();
}

std::filesystem::path CppCompiler::cache_entry(const std::string& key) const {
  return options_.cache_dir / "obj" / key.substr(0, 2) / key;
}

bool CppCompiler::cached(const CompileRequest& request) {
  CompileResult probe;
  return load_cached(cache_entry(cache_key(request)), probe);
}

CompileResult CppCompiler::compile(const CompileRequest& request) {
  const std::string key = cache_key(request);
  CompileResult result;
  result.key = key;
  if (request.role == Role::baseline && !torch_) {  // nothing to build against: said, not cached
    result.log = "the baseline needs libtorch: " + torch_.error().message;
    result.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", result.log, {}});
    return result;
  }
  auto entry = cache_entry(key);
  if (load_cached(entry, result)) {
    result.key = key;
    return result;
  }

  auto scratch = new_scratch();
  if (!scratch) {
    result.log = "cannot prepare a folder to compile in: " + scratch.error().message;
    return result;
  }
  // The file name is only a name for diagnostics: never a path, never an option.
  const std::string file = scratch_file_name(request.file_name);
  auto wrote = core::write_atomic(*scratch / file, request.source);
  if (wrote) wrote = core::write_atomic(*scratch / "kforge_task.h", request.task_header);
  if (wrote) wrote = write_public_headers(*scratch);
  if (!wrote) {  // kforge's trouble, not the kernel's: say so, and cache nothing
    std::error_code ec;
    std::filesystem::remove_all(*scratch, ec);
    result.log = "kforge could not prepare the compile: " + wrote.error().message;
    result.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", result.log, {}});
    return result;
  }
  std::vector<std::string> argv = compile_argv(request, file);
  std::filesystem::path pch_dir;
  if (request.role == Role::baseline) {
    std::string pch_error;  // without the PCH the baseline still compiles, only slower
    auto pch = precompiled_torch_header(pch_error);
    if (!pch.empty()) {
      argv.insert(argv.end(), {"-include", pch.string()});
      pch_dir = pch.parent_path();
    }
  }
  argv.insert(argv.end(), {"-shared", file, "-o", "kernel.so"});
  if (request.role == Role::baseline)
    for (const auto& f : torch_link_flags()) argv.push_back(f);
  if (request.role == Role::expert)
    argv.insert(argv.end(), {"-Wl,--as-needed", "-ldnnl", "-lopenblas"});
  result.command = shell_join(argv);

  auto sandbox = sandbox_for(request.role, *scratch, pch_dir);
  auto run = core::run_process(argv, sandboxed(sandbox, 256 << 10));
  read_compiler_run(run, file, request, sandbox,
                    {"the compiler", options_.cxx, " (a constexpr loop or template blow-up?)"},
                    result);

  // Cache the outcome (timeouts excepted: they may pass on a quieter machine; and a compile
  // stopped by Ctrl-C, which said nothing of the source).
  store_outcome(*scratch, file, entry, !run.timed_out && !run.spawn_failed && !run.cancelled,
                result);
  return result;
}

std::string CppCompiler::vectorization_output(const CompileRequest& request) {
  auto scratch = new_scratch();
  if (!scratch) return {};
  const std::string file = scratch_file_name(request.file_name);
  // Remarks are a help, not a verdict: a scratch folder that cannot be written means none.
  if (!core::write_atomic(*scratch / file, request.source) ||
      !core::write_atomic(*scratch / "kforge_task.h", request.task_header) ||
      !write_public_headers(*scratch)) {
    std::error_code ec;
    std::filesystem::remove_all(*scratch, ec);
    return {};
  }
  std::vector<std::string> argv = compile_argv(request, file);
  for (const char* a :
       {"-fopt-info-vec-optimized", "-fopt-info-vec-missed", "-c", "-o", "/dev/null"})
    argv.push_back(a);
  argv.push_back(file);
  auto r = core::run_process(argv, sandboxed(sandbox_for(request.role, *scratch, {}), 4 << 20));
  std::error_code ec;
  std::filesystem::remove_all(*scratch, ec);
  return rename_in_output(core::valid_utf8(r.err + r.out), file, request.file_name);
}

}  // namespace kforge::toolchain
