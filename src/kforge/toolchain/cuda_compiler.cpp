// nvcc in the compile sandbox: the kernel file and kforge_task.h in a fresh scratch folder, one
// nvcc run to a shared object (-cudart shared, so the link check sees libcudart as a NEEDED
// library and nothing of the runtime is linked in), ptxas's report parsed, the outcome cached.
#include "kforge/toolchain/cuda_compiler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/compile_cache.h"
#include "kforge/toolchain/compile_scratch.h"

namespace kforge::toolchain {
namespace {

constexpr const char* kSandboxGeneration = "sandbox 1 cuda 1";

bool trusted(Role role) { return role != Role::candidate; }

// Vendor libraries a trusted CUDA source may call: what an expert or the framework baseline uses.
const std::vector<std::string>& vendor_libs() {
  static const std::vector<std::string> libs = {"cublas", "cublasLt", "cudnn"};
  return libs;
}

}  // namespace

CudaCompiler::CudaCompiler(CudaCompilerOptions options) : options_(std::move(options)) {
  std::error_code ec;
  // The sandbox's Landlock rules are on resolved folders; /usr/local/cuda is usually a symlink.
  auto real = std::filesystem::canonical(options_.cuda_home, ec);
  if (!ec) options_.cuda_home = real;
}

bool CudaCompiler::available() const {
  std::error_code ec;
  return std::filesystem::exists(nvcc(), ec);
}

std::vector<std::string> CudaCompiler::flags_for(Role role) const {
  // A baseline is host code calling PyTorch's C++ API (its CUDA kernels are PyTorch's): the host
  // compiler builds it, with the C++ standard and ABI the wheel was built with.
  if (role == Role::baseline)
    return {"-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden", "-w", "-D_GLIBCXX_USE_CXX11_ABI=1",
            "-shared"};
  std::vector<std::string> f = {"-std=c++20", "-arch=" + options_.arch, "-x", "cu"};
  if (role == Role::reference || role == Role::generator) {
    f.push_back("-O2");
  } else {
    f.insert(f.end(), {"-O3", "-lineinfo", "-Xptxas", "-v"});
  }
  // Host side: position-independent, nothing exported but the entry (the header marks it
  // visible), the same warnings a cpp kernel gets.
  f.insert(f.end(), {"-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared", "-cudart", "shared"});
  if (role == Role::candidate || role == Role::expert) f.insert(f.end(), {"-Xcompiler", "-Wall"});
  return f;
}

std::vector<std::string> CudaCompiler::link_flags(Role role) const {
  // The toolkit's libraries are found through the artifact's run path: the kernel's process
  // gets no LD_LIBRARY_PATH.
  std::vector<std::string> f;
  if (role != Role::baseline)
    f.insert(f.end(), {"-Xlinker", "-rpath," + (options_.cuda_home / "lib64").string()});
  if (!trusted(role)) return f;
  f.push_back("-L" + (options_.cuda_home / "lib64").string());
  if (role == Role::baseline && options_.torch) {
    const auto& lib = options_.torch->lib_dir;
    // No -lcudart: PyTorch loads the CUDA runtime its wheel ships (through its own run path),
    // which may be newer than the toolkit's. libtorch_cuda registers PyTorch's CUDA backend from
    // its static initializers and no baseline names a symbol of it, so a linker that drops
    // unreferenced libraries (--as-needed: the default of Ubuntu's GCC) leaves it out and the
    // first CUDA tensor aborts ("Cannot initialize CUDA without ATen_cuda library"): it is
    // linked --no-as-needed, whatever the distribution's default.
    f.insert(f.end(), {"-L" + lib.string(), "-Wl,-rpath," + lib.string(), "-Wl,--no-as-needed",
                       "-ltorch_cuda", "-Wl,--as-needed", "-lc10_cuda", "-ltorch_cpu", "-lc10"});
    return f;
  }
  f.insert(f.end(), {"-Xlinker", "--as-needed"});
  for (const auto& lib : vendor_libs()) f.push_back("-l" + lib);
  return f;
}

LinkPolicy CudaCompiler::link_policy(Role role) const {
  LinkPolicy p;
  p.lib_dirs = {options_.cuda_home / "lib64", options_.cuda_home / "lib"};
  p.extra_libs = {"cudart"};
  if (trusted(role))
    p.extra_libs.insert(p.extra_libs.end(), vendor_libs().begin(), vendor_libs().end());
  return p;
}

std::string CudaCompiler::identity() {
  std::lock_guard lock(mu_);
  if (identity_.empty()) {
    auto r = core::run_process({nvcc().string(), "--version"},
                               {.timeout = std::chrono::seconds(30),
                                .clean_env = compile_environment(options_.cuda_home)});
    // The last line names the build ("Build cuda_13.0.r13.0/compiler.36424714_0"); the one
    // before it the release.
    std::string last, before;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) before = std::exchange(last, line);
    version_ = before;
    identity_ = nvcc().string() + "|" + before + "|" + last + "|" + options_.arch;
    if (!options_.include_dir.empty()) include_digest_ = tree_digest(options_.include_dir);
  }
  return identity_;
}

std::string CudaCompiler::version() {
  identity();
  std::lock_guard lock(mu_);
  return version_.empty() ? nvcc().string() : version_;
}

CompileSandbox CudaCompiler::sandbox_for(Role role, const std::filesystem::path& scratch) const {
  CompileSandbox sb{.scratch = scratch, .compiler = nvcc(), .toolchain_dirs = {options_.cuda_home}};
  sb.limits = trusted(role) ? options_.trusted_limits : options_.candidate_limits;
  sb.timeout = role == Role::baseline ? options_.baseline_timeout : options_.timeout;
  sb.cancel = options_.cancel;
  if (trusted(role)) {
    if (!options_.include_dir.empty()) sb.trusted_reads.push_back(options_.include_dir);
    if (options_.torch)
      for (const auto& dir : options_.torch->runtime_dirs) sb.trusted_reads.push_back(dir);
  }
  return sb;
}

CompileResult CudaCompiler::compile(const CompileRequest& request) {
  CompileResult result;
  if (request.role == Role::baseline && !options_.torch) {
    result.log =
        "no PyTorch with CUDA for the baseline: kforge's Python environment (KFORGE_PYENV or "
        "--pyenv; build/pyenv in a build tree) has no torch wheel with CUDA";
    result.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", result.log, {}});
    return result;
  }
  if (!available()) {
    result.log = fmt::format(
        "nvcc is not installed at {} (set KFORGE_CUDA_HOME to the CUDA toolkit's folder)",
        nvcc().string());
    result.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", result.log, {}});
    return result;
  }
  core::Hasher key;
  key.add(identity())
      .add(role_name(request.role))
      .add(request.source)
      .add(request.file_name)
      .add(request.task_header);
  for (const auto& f : flags_for(request.role)) key.add(f);
  for (const auto& f : link_flags(request.role)) key.add(f);
  for (const auto& f : request.extra_flags) key.add(f);
  if (trusted(request.role)) key.add(include_digest_);
  if (request.role == Role::baseline) {
    // The wheel's version decides what the baseline links: a new torch must miss the cache.
    key.add(options_.torch->root.string()).add(options_.torch->version).add(options_.host_cxx);
  }
  const auto& limits = trusted(request.role) ? options_.trusted_limits : options_.candidate_limits;
  key.add(fmt::format("{} fsize {} as {}", kSandboxGeneration, limits.output_bytes,
                      limits.address_space));
  result.key = key.hex();
  auto entry = options_.cache_dir / "obj" / result.key.substr(0, 2) / result.key;
  if (load_cached(entry, result)) {
    result.key = key.hex();
    return result;
  }

  auto root = private_scratch_root(options_.scratch_root);
  auto scratch = root ? make_scratch(*root) : Result<std::filesystem::path>(root.error());
  if (!scratch) {
    result.log = "cannot prepare a folder to compile in: " + scratch.error().message;
    return result;
  }
  const std::string file = scratch_file_name(request.file_name, ".cu");
  auto wrote = core::write_atomic(*scratch / file, request.source);
  if (wrote) wrote = core::write_atomic(*scratch / "kforge_task.h", request.task_header);
  if (!wrote) {
    std::error_code ec;
    std::filesystem::remove_all(*scratch, ec);
    result.log = "kforge could not prepare the compile: " + wrote.error().message;
    result.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", result.log, {}});
    return result;
  }
  const bool baseline = request.role == Role::baseline;
  std::vector<std::string> argv = {baseline ? options_.host_cxx : nvcc().string()};
  for (const auto& f : flags_for(request.role)) argv.push_back(f);
  for (const auto& f : request.extra_flags) argv.push_back(f);
  argv.push_back("-I.");
  if (trusted(request.role) && !options_.include_dir.empty())
    argv.push_back("-I" + options_.include_dir.string());
  if (baseline) {
    argv.push_back("-I" + (options_.cuda_home / "include").string());
    for (const auto& dir : options_.torch->include_dirs) argv.push_back("-I" + dir.string());
    argv.insert(argv.end(), {"-x", "c++", file, "-x", "none"});
  } else {
    argv.push_back(file);
  }
  argv.insert(argv.end(), {"-o", "kernel.so"});
  for (const auto& f : link_flags(request.role)) argv.push_back(f);
  result.command = shell_join(argv);

  auto sandbox = sandbox_for(request.role, *scratch);
  if (baseline) sandbox.compiler = options_.host_cxx;
  auto run = core::run_process(argv, sandboxed(sandbox, 1 << 20));
  const std::string raw =
      read_compiler_run(run, file, request, sandbox, {"nvcc", nvcc().string(), ""}, result);
  result.resources = parse_ptxas_report(raw);

  // Cache the outcome (timeouts excepted: they may pass on a quieter machine).
  store_outcome(*scratch, file, entry, !run.timed_out && !run.spawn_failed && !run.cancelled,
                result);
  return result;
}

}  // namespace kforge::toolchain
