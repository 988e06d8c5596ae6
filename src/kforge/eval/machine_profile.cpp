// This machine's profile: its description, and peaks from the per-user record or a new
// measurement (kforge-peak runs, with the machine to itself, repeated until they agree).
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "kforge/core/subprocess.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/peak_cache.h"
#include "kforge/eval/runner_process.h"

namespace kforge::eval {
namespace {

double unix_now() { return static_cast<double>(std::time(nullptr)); }

// One kforge-peak run, with the runner's library path, so the OpenBLAS it reports is the one
// baselines load.
Result<nlohmann::json> run_peak_once(int cpus) {
  auto exe = runner_executable().parent_path() / "kforge-peak";
  std::vector<std::string> env;
  for (auto& e : runner_environment(cpus))
    if (e.rfind("LD_LIBRARY_PATH=", 0) == 0 || e.rfind("OPENBLAS_CORETYPE=", 0) == 0)
      env.push_back(e);
  auto r =
      core::run_process({exe.string()}, {.timeout = std::chrono::seconds(120), .extra_env = env});
  if (!r.success())
    return Error{
        fmt::format("measuring peaks with {} failed ({}): {}", exe.string(), r.describe(), r.err)};
  auto peaks = nlohmann::json::parse(r.out, nullptr, false);
  if (!peaks.is_object())
    return Error{fmt::format("{} printed something that is not JSON: {}", exe.string(), r.out)};
  return peaks;
}

PeakMeasureIo real_io(int cpus, const std::function<void(std::string_view)>& progress) {
  return {.run_once = [cpus] { return run_peak_once(cpus); },
          .probe =
              [cpus] {
                LoadProbe probe;
                return judge_load(probe.sample_for(0.25, 0.05), cpus);
              },
          .sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); },
          .now = monotonic_seconds,
          .progress = progress};
}

void say(const MachineProfileOptions& o, const std::string& message) {
  if (o.progress) o.progress(message);
}

}  // namespace

Result<MachineProfile> machine_profile(const std::filesystem::path& cache_dir,
                                       const MachineProfileOptions& o) {
  MachineProfile m = describe_cpu();
  const std::string key = machine_key(m);
  const auto file = peak_file(cache_dir, m);
  auto record = read_peak_record(file, key);
  std::string why =
      o.remeasure ? "asked to"
      : !record   ? "none measured on this machine yet"
                  : remeasure_reason(*record, m.usable_cpus, unix_now(), o.provisional_retry_s);
  if (why.empty()) {
    apply_peak_record(m, *record, file);
    return m;
  }
  // With the machine to itself; then read again: another process may have measured meanwhile.
  MachineLock::Exclusive alone;
  if (o.lock) alone = o.lock->measure();
  if (!o.remeasure) {
    record = read_peak_record(file, key);
    if (record &&
        remeasure_reason(*record, m.usable_cpus, unix_now(), o.provisional_retry_s).empty()) {
      apply_peak_record(m, *record, file);
      return m;
    }
  }
  say(o, fmt::format("measuring this machine's peaks ({}; at most about {:.0f} s: "
                     "KFORGE_PEAK_BUDGET_S)",
                     why, o.measure.budget_s));
  PeakMeasureOptions mo = o.measure;
  mo.cpus = m.usable_cpus;
  auto measured = measure_peaks(mo, real_io(m.usable_cpus, o.progress));
  if (!measured) return measured.error();
  if (!alone.contention.empty()) {
    measured->provisional = true;
    measured->provisional_reason +=
        (measured->provisional_reason.empty() ? "" : "; ") + alone.contention;
  }
  auto fresh = peak_record(key, m, *measured, record, unix_now());
  if (auto st = write_peak_record(file, fresh); !st)
    say(o, "warning: the peaks could not be kept: " + st.error().message);
  apply_peak_record(m, fresh, file);
  return m;
}

}  // namespace kforge::eval
