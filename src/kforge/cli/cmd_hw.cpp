// kforge hw [--json] [--remeasure [--budget S]]: this machine, and its measured peaks (kept once
// per machine in the per-user cache; --remeasure measures again and shows how the runs spread),
// and the project's Python environment (JAX and its backends, PyTorch), absent or not, with what
// it lacks of what kforge needs (a user's own environment, named by KFORGE_PYENV or --pyenv).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/python_needs.h"
#include "kforge/core/torch_install.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/walls.h"
#include "kforge/runner/cuda_driver.h"

namespace kforge::cli {
namespace {

struct HwOptions {
  std::string target;
  bool json = false, remeasure = false;
  double budget = 0;  // KFORGE_PEAK_BUDGET_S, default 30
};

std::string describe_caches(const eval::MachineProfile& m) {
  std::string caches;
  for (const auto& c : m.caches)
    caches +=
        fmt::format("{}L{}{} {} KiB{}", caches.empty() ? "" : ", ", c.level,
                    c.type == "Data"          ? "d"
                    : c.type == "Instruction" ? "i"
                                              : "",
                    c.size_bytes >> 10,
                    c.shared_by_cpus > 1 ? fmt::format(" (shared by {})", c.shared_by_cpus) : "");
  return caches;
}

std::string describe_trust(const eval::MachineProfile& m) {
  if (m.provisional)
    return fmt::format("provisional: {}; measured again on a later run", m.provisional_reason);
  return fmt::format("{} run{} agreed{}", m.peak_runs.size(), m.peak_runs.size() == 1 ? "" : "s",
                     m.peak_load.busy ? "" : " on a quiet machine");
}

// Every run of the measurement, and how far apart the runs were per rate.
std::string describe_runs(const eval::MachineProfile& m) {
  std::string s;
  int k = 0;
  for (const auto& r : m.peak_runs)
    s += fmt::format(
        "  run {}: FMA {:.1f} / {:.1f} GFLOP/s, triad {:.1f} / {:.1f} GB/s (1 CPU / all){}\n", ++k,
        r.rates.fma_gflops_1, r.rates.fma_gflops_all, r.rates.triad_gbps_1, r.rates.triad_gbps_all,
        r.load.busy ? "  [busy: " + r.load.reason + "]" : "");
  s += fmt::format("  spread (max−min)/max: FMA {:.1f}% / {:.1f}%, triad {:.1f}% / {:.1f}%\n",
                   100 * m.peak_spread.fma_gflops_1, 100 * m.peak_spread.fma_gflops_all,
                   100 * m.peak_spread.triad_gbps_1, 100 * m.peak_spread.triad_gbps_all);
  return s;
}

// What the libtorch baselines (both targets') build against: the environment's torch wheel, else
// the system's libtorch; or why there is none.
nlohmann::json libtorch_json(const core::PythonEnvInfo& p) {
  auto t = core::find_torch(p.dir);
  if (!t) return {{"found", false}, {"problem", t.error().message}};
  nlohmann::json includes = nlohmann::json::array();
  for (const auto& d : t->include_dirs) includes.push_back(d.string());
  return {{"found", true},
          {"wheel", t->wheel},
          {"root", t->root.string()},
          {"version", t->version},
          {"include_dirs", includes},
          {"lib_dir", t->lib_dir.string()},
          {"cmake_dir", t->cmake_dir.string()},
          {"cuda", t->cuda}};
}

std::string libtorch_row(const core::PythonEnvInfo& p) {
  auto t = core::find_torch(p.dir);
  if (!t) return "none: " + t.error().message;
  return t->describe() + (t->cuda ? ", with CUDA" : ", CPU only") +
         ": the baselines build against it";
}

nlohmann::json python_json(const core::PythonEnvInfo& p) {
  nlohmann::json j = {{"dir", p.dir.string()}, {"found", p.found}, {"libtorch", libtorch_json(p)}};
  if (!p.found) {
    j["problem"] = p.problem;
    return j;
  }
  j["python"] = p.python_version;
  j["numpy"] = p.numpy_version;
  j["ml_dtypes"] = p.ml_dtypes_version;
  j["jax"] = p.jax_version;
  j["jaxlib"] = p.jaxlib_version;
  j["jax_backends"] = p.jax_backends;
  j["jax_default_backend"] = p.jax_default_backend;
  j["pallas"] = p.pallas;
  j["torch"] = p.torch_version;
  if (!p.jax_error.empty()) j["jax_error"] = p.jax_error;
  if (!p.pallas_error.empty()) j["pallas_error"] = p.pallas_error;
  if (!p.torch_error.empty()) j["torch_error"] = p.torch_error;
  j["shortfalls"] = core::python_shortfalls(p);
  // The backend kforge gives a Pallas kernel's worker (jax_backend.h), and why.
  const auto& b = eval::this_jax_backend();
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : b.device_nodes) nodes.push_back(n.string());
  j["pallas_backend"] = {{"platform", b.platform},
                         {"timing_basis", b.timing_basis},
                         {"interpret", b.interpret},
                         {"device_nodes", nodes},
                         {"why", b.why}};
  return j;
}

// "0.10.2", or why it is not there.
std::string version_or_why(const std::string& version, const std::string& error) {
  return !version.empty() ? version : "not importable" + (error.empty() ? "" : ": " + error);
}

// What a Pallas kernel does here: interpret mode on a CPU backend (an emulation, whose times are
// not performance), compiled on a GPU or TPU.
std::string pallas_row(const core::PythonEnvInfo& p) {
  if (p.jax_version.empty()) return "unavailable: JAX is not importable";
  if (!p.pallas) return version_or_why("", p.pallas_error);
  if (p.jax_default_backend == "cpu")
    return "importable; the default backend is the CPU: kernels run in interpret mode, whose "
           "times are not performance";
  return fmt::format("importable; kernels compile for the default backend, {}",
                     p.jax_default_backend);
}

// "met (python >= 3.11, ...)", or every shortfall with the line that mends it.
std::string python_needs_row(const core::PythonEnvInfo& p) {
  const auto shortfalls = core::python_shortfalls(p);
  if (!shortfalls.empty()) return fmt::format("{}", fmt::join(shortfalls, "; "));
  std::vector<std::string> floors;
  for (const auto& n : core::python_needs()) floors.push_back(n.package + " >= " + n.minimum);
  return fmt::format("met ({})", fmt::join(floors, ", "));
}

std::vector<std::pair<std::string, std::string>> python_rows(const core::PythonEnvInfo& p) {
  if (!p.found) return {{"python env", "none: " + p.problem}, {"libtorch", libtorch_row(p)}};
  std::string jax = version_or_why("", p.jax_error);
  if (!p.jax_version.empty())
    jax = fmt::format("{}, backends: {}; default {}{}", p.jax_version,
                      fmt::join(p.jax_backends, ", "),
                      p.jax_default_backend.empty() ? "unknown" : p.jax_default_backend,
                      p.jaxlib_version.empty() ? "" : "; jaxlib " + p.jaxlib_version);
  return {{"python env",
           fmt::format("{} (Python {}, NumPy {}, ml_dtypes {})", p.dir.string(), p.python_version,
                       p.numpy_version.empty() ? "missing" : p.numpy_version,
                       p.ml_dtypes_version.empty() ? "missing" : p.ml_dtypes_version)},
          {"jax", jax},
          {"pallas", pallas_row(p)},
          {"pallas backend",
           fmt::format("{} (timing basis {}): {}", eval::this_jax_backend().platform,
                       eval::this_jax_backend().timing_basis, eval::this_jax_backend().why)},
          {"torch", version_or_why(p.torch_version, p.torch_error)},
          {"libtorch", libtorch_row(p)},
          {"python needs", python_needs_row(p)}};
}

// --target cuda: the first CUDA device and its measured peaks; exit 1 with the reason when there
// is no device (a script asking for the GPU must not read an empty answer as one).
int run_hw_cuda(const HwOptions& o) {
  eval::GpuProfileOptions go;
  go.cache_dir = core::user_cache_dir();
  go.cuda_home = toolchain_settings().cuda_home;
  go.remeasure = o.remeasure;
  if (!o.json) progress("finding the CUDA device (and measuring its peaks the first time)");
  // No device: said at once, without waiting for the machine lock.
  auto devices = runner::cuda_devices();
  std::unique_ptr<eval::MachineLock> lock;
  std::optional<eval::MachineLock::Exclusive> exclusive;
  if (devices) {
    lock = make_machine_lock();
    exclusive.emplace(lock->measure());  // peaks are measured with the machine to themselves
  }
  auto p = devices ? eval::gpu_profile(go) : Result<eval::GpuProfile>(devices.error());
  if (!p) {
    if (o.json)
      fmt::print("{}\n", nlohmann::json{{"target", "cuda"},
                                        {"devices", nlohmann::json::array()},
                                        {"problem", p.error().message}}
                             .dump(2));
    else
      fmt::print("{}", key_values({{"target", "cuda"}, {"device", "none: " + p.error().message}}));
    return 1;
  }
  // The Python environment too: the cuda target's baseline and the torch peers run in it.
  auto python = core::probe_python_env();
  if (o.json) {
    nlohmann::json j = *p;
    j["target"] = "cuda";
    j["python"] = python_json(python);
    j["walls"] = eval::machine_walls().to_json();
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  const auto& d = p->device;
  const auto& k = p->peaks;
  std::vector<std::pair<std::string, std::string>> rows({
      {"gpu", fmt::format("{} ({}, driver {}.{})", d.name, d.arch(), d.driver_version / 1000,
                          d.driver_version % 1000 / 10)},
      {"sms", std::to_string(d.sms)},
      {"memory", fmt::format("{:.1f} GiB", d.memory_bytes / double(1ULL << 30))},
      {"l2", fmt::format("{:.1f} MiB", d.l2_bytes / double(1 << 20))},
      {"fma f32", fmt::format("{:.0f} GFLOP/s (measured)", k.fp32_fma_gflops)},
      {"tensor", fmt::format("{:.0f} GFLOP/s FP16, {:.0f} GFLOP/s TF32 (mma.sync, measured)",
                             k.tensor_f16_gflops, k.tensor_tf32_gflops)},
      {"memory bw", fmt::format("{:.0f} GB/s (measured copy)", k.hbm_gbps)},
      {"roofline", fmt::format("FP32 ridge at {:.1f} FLOP/byte: kernels below it are bound by "
                               "memory, above it by FP32 throughput",
                               k.ridge_fp32())},
      {"peaks", p->measured_now ? "measured now" : "from the per-user cache (--remeasure)"},
  });
  for (auto& row : python_rows(python)) rows.push_back(std::move(row));
  // The walls untrusted kernels are judged behind here (walls.h).
  rows.push_back({"walls", eval::machine_walls().describe()});
  fmt::print("{}", key_values(rows));
  return 0;
}

int run_hw(const HwOptions& o) {
  if (target_arg(o.target).agent_material().gpu) return run_hw_cuda(o);
  auto lock = make_machine_lock();
  auto m = this_machine(lock.get(), o.remeasure, o.budget);
  if (!m) throw UsageError(m.error().message);
  auto python = core::probe_python_env();
  if (o.json) {
    auto j = eval::to_json(*m);
    j["python"] = python_json(python);
    j["walls"] = eval::machine_walls().to_json();
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> rows = {
      {"cpu", m->cpu_model},
      {"host", m->hostname},
      {"core", fmt::format("{} (family {}, model {}, stepping {}){}",
                           m->microarch.empty() ? "unknown" : m->microarch, m->cpu_family,
                           m->cpu_model_number, m->stepping,
                           m->microarch_note.empty() ? "" : ": " + m->microarch_note)},
      {"clock", m->clock_ghz > 0 ? fmt::format("{:.2f} GHz ({})", m->clock_ghz, m->clock_source)
                                 : "unknown"},
      {"cores", fmt::format("{} logical ({} usable here), {} physical", m->logical_cpus,
                            m->usable_cpus, m->physical_cores)},
      {"isa", fmt::format("{}", fmt::join(m->isa, " "))},
      {"caches", describe_caches(*m)},
      {"openblas", fmt::format("core {}{} ({})", m->openblas_core,
                               m->openblas_coretype_env.empty()
                                   ? ""
                                   : ", OPENBLAS_CORETYPE=" + m->openblas_coretype_env,
                               m->openblas_config)},
      {"fma f32", fmt::format("{:.1f} GFLOP/s on 1 core, {:.1f} on {} ({} code)", m->fma_gflops_1,
                              m->fma_gflops_all, m->logical_cpus, m->peak_isa)},
      {"triad", fmt::format("{:.1f} GB/s on 1 core, {:.1f} on {}", m->triad_gbps_1,
                            m->triad_gbps_all, m->logical_cpus)},
      {"peaks", describe_trust(*m)},
      {"measured", m->measured_at},
      {"kept in", m->peak_file.string()},
  };
  if (auto warning = eval::openblas_core_warning(*m); !warning.empty()) {
    auto at = std::find_if(rows.begin(), rows.end(), [](auto& r) { return r.first == "openblas"; });
    rows.insert(at == rows.end() ? at : at + 1, {"openblas note", warning});
  }
  for (auto& row : python_rows(python)) rows.push_back(std::move(row));
  // The walls untrusted kernels are judged behind here (walls.h).
  rows.push_back({"walls", eval::machine_walls().describe()});
  fmt::print("{}", key_values(rows));
  if (o.remeasure) fmt::print("{}", describe_runs(*m));
  return 0;
}

}  // namespace

void add_hw(CommandLine& cmd) {
  auto o = std::make_shared<HwOptions>();
  cmd.bind("json", o->json);
  cmd.bind("target", o->target);
  cmd.bind("remeasure", o->remeasure);
  cmd.bind("peak-budget", o->budget);
  cmd.on_run([o] { return run_hw(*o); });
}

}  // namespace kforge::cli
