// The Python checker in the compile sandbox: kernel.py and kforge_task.py in a fresh scratch
// folder, the checker copied beside them (the sandbox reads nothing of kforge's tree), its
// GCC-style findings parsed, the outcome and the checked module stored in the cache.
#include "kforge/toolchain/pallas_compiler.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/compile_cache.h"
#include "kforge/toolchain/compile_scratch.h"

namespace kforge::toolchain {
namespace {

constexpr const char* kGeneration = "pallas check 2";

CompileResult refused(const std::string& why) {
  CompileResult r;
  r.log = why;
  r.diagnostics.push_back(Diagnostic{"kforge", 0, 0, "error", why, {}});
  return r;
}

// The JAX release in the venv, from its version file (no interpreter started for it).
std::string jax_version(const std::filesystem::path& venv) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(venv / "lib", ec)) {
    auto text = core::read_text(e.path() / "site-packages" / "jax" / "version.py");
    if (!text) continue;
    std::smatch m;
    if (std::regex_search(*text, m, std::regex("_version: str = \"([^\"]+)\"")) ||
        std::regex_search(*text, m, std::regex("_version = \"([^\"]+)\"")))
      return m[1];
  }
  return "unknown";
}

}  // namespace

PallasCompiler::PallasCompiler(PallasCompilerOptions options) : options_(std::move(options)) {}

std::string PallasCompiler::identity() {
  std::lock_guard lock(mu_);
  if (identity_.empty()) {
    auto checker = core::read_text(options_.checker);
    version_ =
        fmt::format("Python ({}), JAX {}", options_.python.string(), jax_version(options_.venv));
    identity_ = version_ + "|" + (checker ? core::Hasher().add(*checker).hex() : "no checker");
  }
  return identity_;
}

std::string PallasCompiler::version() {
  identity();
  std::lock_guard lock(mu_);
  return version_;
}

CompileResult PallasCompiler::compile(const CompileRequest& request) {
  if (!std::filesystem::exists(options_.python))
    return refused(
        fmt::format("the Python environment's interpreter {} is missing (scripts/setup "
                    "makes it; KFORGE_PYENV names another)",
                    options_.python.string()));
  if (!std::filesystem::exists(options_.checker))
    return refused(fmt::format("the Pallas checker {} is missing (rebuild kforge)",
                               options_.checker.string()));
  core::Hasher key;
  key.add(identity())
      .add(kGeneration)
      .add(role_name(request.role))
      .add(request.source)
      .add(request.file_name)
      .add(request.task_header);
  CompileResult result;
  result.key = key.hex();
  auto entry = options_.cache_dir / "obj" / result.key.substr(0, 2) / result.key;
  if (load_cached(entry, result, "kernel.py")) {
    result.key = key.hex();
    return result;
  }
  auto root = private_scratch_root(options_.scratch_root);
  auto scratch = root ? make_scratch(*root) : Result<std::filesystem::path>(root.error());
  if (!scratch) return refused("cannot prepare a folder to check in: " + scratch.error().message);
  auto wrote = core::write_atomic(*scratch / "kernel.py", request.source);
  if (wrote) wrote = core::write_atomic(*scratch / "kforge_task.py", request.task_header);
  std::error_code ec;
  std::filesystem::copy_file(options_.checker, *scratch / "kforge_pallas_check.py", ec);
  if (!wrote || ec) {
    std::filesystem::remove_all(*scratch, ec);
    return refused("kforge could not prepare the check: " +
                   (wrote ? ec.message() : wrote.error().message));
  }
  std::vector<std::string> argv = {options_.python.string(), "-I", "-B", "kforge_pallas_check.py"};
  // The rule against naming the task's own files is a candidate's: a trusted role (the task's
  // expert) is one of those files, and may name the others.
  if (request.role != Role::candidate) argv.push_back("--trusted");
  argv.push_back("kernel.py");
  result.command = shell_join(argv);
  CompileSandbox sandbox{.scratch = *scratch,
                         .compiler = options_.python,
                         .toolchain_dirs = {std::filesystem::canonical(options_.venv, ec)},
                         .limits = options_.limits,
                         .timeout = options_.timeout};
  sandbox.cancel = options_.cancel;
  auto run = core::run_process(argv, sandboxed(sandbox, 1 << 20));
  const std::string raw = core::valid_utf8(run.out + run.err);
  result.seconds = run.wall_ms / 1000.0;
  result.timed_out = run.timed_out;
  result.log = rename_in_output(raw, "kernel.py", request.file_name);
  result.diagnostics = parse_diagnostics(raw, {{"kernel.py", request.source}});
  for (auto& d : result.diagnostics)
    if (d.file == "kernel.py") d.file = request.file_name;
  result.ok = run.success();
  if (run.timed_out)
    result.log =
        fmt::format("the Pallas check did not finish within {} s\n", options_.timeout.count()) +
        result.log;
  else if (!result.ok && run.spawn_failed)
    result.log =
        fmt::format("cannot run {}: {}", options_.python.string(), core::valid_utf8(run.err));
  else if (!result.ok && result.diagnostics.empty())
    explain_sandbox(result, raw, sandbox.limits);
  if (run.timed_out || run.spawn_failed || run.cancelled) {
    std::filesystem::remove_all(*scratch, ec);
    return result;
  }
  std::filesystem::remove(*scratch / "kforge_pallas_check.py", ec);
  std::filesystem::remove(*scratch / "kforge_task.py", ec);
  auto stored = core::write_atomic(*scratch / "result.json", result_to_json(result).dump());
  if (stored) stored = publish_scratch(*scratch, entry);
  if (!stored || !load_cached(entry, result, "kernel.py")) {
    std::filesystem::remove_all(*scratch, ec);
    result.ok = false;
    result.artifact.clear();
    result.log = "kforge could not store the checked kernel\n" + result.log;
  }
  result.cached = false;
  return result;
}

}  // namespace kforge::toolchain
