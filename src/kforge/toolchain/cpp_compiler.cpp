// Compiles in a scratch folder, then moves the artifact into the cache under its content key.
// Failed compiles are cached too: re-evaluating a broken kernel costs nothing.
#include "kforge/toolchain/cpp_compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/subprocess.h"

namespace kforge::toolchain {

std::string_view role_name(Role role) {
  switch (role) {
    case Role::candidate: return "candidate";
    case Role::reference: return "reference";
    case Role::baseline: return "baseline";
    case Role::expert: return "expert";
    case Role::generator: return "generator";
  }
  return "?";
}

namespace {

// Baselines include ATen; this header is precompiled once per compiler and flag set.
constexpr const char* kTorchPchHeader = "#include <ATen/ATen.h>\n";

std::vector<std::string> baseline_flags() { return {"-std=c++20", "-O2", "-fPIC", "-fopenmp", "-w"}; }

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

std::filesystem::path make_scratch(const std::filesystem::path& cache_dir) {
  std::random_device rd;
  auto dir = cache_dir / "tmp" / fmt::format("compile-{}-{:08x}", ::getpid(), rd());
  std::filesystem::create_directories(dir);
  return dir;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

nlohmann::json result_to_json(const CompileResult& r) {
  return {{"ok", r.ok}, {"timed_out", r.timed_out}, {"diagnostics", r.diagnostics}, {"log", r.log}, {"command", r.command}, {"seconds", r.seconds}};
}

bool load_cached(const std::filesystem::path& entry, CompileResult& r) {
  auto text = core::read_text(entry / "result.json");
  if (!text) return false;
  try {
    auto j = nlohmann::json::parse(*text);
    r.ok = j.at("ok");
    r.timed_out = j.value("timed_out", false);
    r.diagnostics = j.at("diagnostics").get<std::vector<Diagnostic>>();
    r.log = j.value("log", "");
    r.command = j.value("command", "");
    r.cached = true;
    r.artifact = r.ok ? entry / "kernel.so" : std::filesystem::path{};
    return !r.ok || std::filesystem::exists(r.artifact);
  } catch (const std::exception&) {
    return false;  // a damaged entry is recompiled
  }
}

}  // namespace

CppCompiler::CppCompiler(CppCompilerOptions options) : options_(std::move(options)) {
  if (options_.cxx.empty()) {
    const char* env = std::getenv("KFORGE_CXX");
    options_.cxx = env && *env ? env : "g++";
  }
}

std::vector<std::string> CppCompiler::flags_for(Role role) const {
  if (role == Role::baseline) return baseline_flags();
  std::vector<std::string> f = {"-std=c++20", "-fPIC", "-fopenmp", "-march=native", "-fvisibility=hidden"};
  if (role == Role::candidate || role == Role::expert) {
    f.push_back("-O3");
    f.push_back("-g");  // line tables for the profiler's hot spots; the generated code is the same
    f.push_back("-Wall");
  } else {
    f.push_back("-O2");  // references and generators: plain, obviously right code
  }
  return f;
}

std::string CppCompiler::identity() {
  std::lock_guard lock(mu_);
  if (identity_.empty()) {
    auto r = core::run_process({options_.cxx, "--version"}, {.timeout = std::chrono::seconds(20)});
    std::string version = r.out.substr(0, r.out.find('\n'));
    identity_ = options_.cxx + "|" + version + "|" + host_cpu_signature();
  }
  return identity_;
}

std::filesystem::path CppCompiler::precompiled_torch_header(std::string& error) {
  core::Hasher h;
  h.add(identity()).add(kTorchPchHeader);
  for (const auto& f : baseline_flags()) h.add(f);
  auto dir = options_.cache_dir / "pch" / h.hex();
  auto header = dir / "kforge_torch.h";
  if (std::filesystem::exists(dir / "kforge_torch.h.gch")) return header;
  auto scratch = make_scratch(options_.cache_dir);
  (void)core::write_atomic(scratch / "kforge_torch.h", kTorchPchHeader);
  std::vector<std::string> argv = {options_.cxx};
  for (const auto& f : baseline_flags()) argv.push_back(f);
  for (const auto& a : {"-x", "c++-header", "kforge_torch.h", "-o", "kforge_torch.h.gch"}) argv.push_back(a);
  auto r = core::run_process(argv, {.timeout = options_.baseline_timeout, .cwd = scratch});
  if (!r.success()) {
    error = fmt::format("precompiling ATen failed ({}): {}", r.describe(), r.err.substr(0, 2000));
    std::filesystem::remove_all(scratch);
    return {};
  }
  std::error_code ec;
  std::filesystem::create_directories(dir.parent_path(), ec);
  std::filesystem::rename(scratch, dir, ec);  // another process may have won the race: fine
  if (ec) std::filesystem::remove_all(scratch, ec);
  return header;
}

CompileResult CppCompiler::compile(const CompileRequest& request) {
  std::vector<std::string> flags = flags_for(request.role);
  for (const auto& f : request.extra_flags) flags.push_back(f);

  core::Hasher key;
  key.add(identity()).add(role_name(request.role)).add(request.source).add(request.file_name).add(request.task_header);
  for (const auto& f : flags) key.add(f);
  if (!options_.include_dir.empty()) key.add(options_.include_dir.string());
  CompileResult result;
  result.key = key.hex();
  auto entry = options_.cache_dir / "obj" / result.key.substr(0, 2) / result.key;
  if (load_cached(entry, result)) {
    result.key = key.hex();
    return result;
  }

  auto scratch = make_scratch(options_.cache_dir);
  (void)core::write_atomic(scratch / request.file_name, request.source);
  (void)core::write_atomic(scratch / "kforge_task.h", request.task_header);
  std::vector<std::string> argv = {options_.cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("-I.");
  if (!options_.include_dir.empty()) argv.push_back("-I" + options_.include_dir.string());
  if (request.role == Role::baseline) {
    std::string pch_error;
    auto pch = precompiled_torch_header(pch_error);
    if (!pch.empty()) argv.insert(argv.end(), {"-include", pch.string()});
  }
  argv.insert(argv.end(), {"-shared", request.file_name, "-o", "kernel.so"});
  if (request.role == Role::baseline) argv.insert(argv.end(), {"-ltorch_cpu", "-lc10"});
  if (request.role == Role::expert) argv.insert(argv.end(), {"-Wl,--as-needed", "-ldnnl", "-lopenblas"});
  result.command = shell_join(argv);

  auto timeout = request.role == Role::baseline ? options_.baseline_timeout : options_.timeout;
  auto run = core::run_process(argv, {.timeout = timeout, .cwd = scratch, .capture_limit = 256 << 10});
  result.seconds = run.wall_ms / 1000.0;
  result.timed_out = run.timed_out;
  result.log = run.err + run.out;
  result.diagnostics = parse_diagnostics(result.log, {{request.file_name, request.source}, {"kforge_task.h", request.task_header}});
  result.ok = run.success() && std::filesystem::exists(scratch / "kernel.so");
  if (run.timed_out)
    result.log = fmt::format("the compiler did not finish within {} s (a constexpr loop or template blow-up?)\n", timeout.count()) + result.log;
  else if (!result.ok && run.spawn_failed)
    result.log = fmt::format("cannot run the compiler '{}': {}", options_.cxx, run.err);

  // Cache the outcome (timeouts excepted: they may pass on a quieter machine).
  if (!run.timed_out && !run.spawn_failed) {
    (void)core::write_atomic(scratch / "result.json", result_to_json(result).dump());
    std::filesystem::remove(scratch / request.file_name);
    std::error_code ec;
    std::filesystem::create_directories(entry.parent_path(), ec);
    std::filesystem::rename(scratch, entry, ec);
    if (ec) std::filesystem::remove_all(scratch, ec);  // a concurrent compile stored it first
    if (!load_cached(entry, result)) result.ok = false;
    result.cached = false;
  } else {
    std::filesystem::remove_all(scratch);
  }
  return result;
}

std::string CppCompiler::vectorization_output(const CompileRequest& request) {
  auto scratch = make_scratch(options_.cache_dir);
  (void)core::write_atomic(scratch / request.file_name, request.source);
  (void)core::write_atomic(scratch / "kforge_task.h", request.task_header);
  std::vector<std::string> argv = {options_.cxx};
  for (const auto& f : flags_for(request.role)) argv.push_back(f);
  for (const auto& f : request.extra_flags) argv.push_back(f);
  argv.push_back("-I.");
  if (!options_.include_dir.empty()) argv.push_back("-I" + options_.include_dir.string());
  for (const char* a : {"-fopt-info-vec-optimized", "-fopt-info-vec-missed", "-c", "-o", "/dev/null"}) argv.push_back(a);
  argv.push_back(request.file_name);
  auto r = core::run_process(argv, {.timeout = options_.timeout, .cwd = scratch, .capture_limit = 4 << 20});
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return r.err + r.out;
}

}  // namespace kforge::toolchain
