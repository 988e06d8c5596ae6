// kforge hw [--json] [--remeasure [--budget S]]: this machine, and its measured peaks (kept once
// per machine in the per-user cache; --remeasure measures again and shows how the runs spread).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/eval/machine.h"

namespace kforge::cli {
namespace {

struct HwOptions {
  bool json = false, remeasure = false;
  double budget = 0;  // KFORGE_PEAK_BUDGET_S, default 30
};

std::string describe_caches(const eval::MachineProfile& m) {
  std::string caches;
  for (const auto& c : m.caches)
    caches += fmt::format("{}L{}{} {} KiB{}", caches.empty() ? "" : ", ", c.level, c.type == "Data" ? "d" : c.type == "Instruction" ? "i" : "",
                          c.size_bytes >> 10, c.shared_by_cpus > 1 ? fmt::format(" (shared by {})", c.shared_by_cpus) : "");
  return caches;
}

std::string describe_trust(const eval::MachineProfile& m) {
  if (m.provisional) return fmt::format("provisional: {}; measured again on a later run", m.provisional_reason);
  return fmt::format("{} run{} agreed{}", m.peak_runs.size(), m.peak_runs.size() == 1 ? "" : "s",
                     m.peak_load.busy ? "" : " on a quiet machine");
}

// Every run of the measurement, and how far apart the runs were per rate.
std::string describe_runs(const eval::MachineProfile& m) {
  std::string s;
  int k = 0;
  for (const auto& r : m.peak_runs)
    s += fmt::format("  run {}: FMA {:.1f} / {:.1f} GFLOP/s, triad {:.1f} / {:.1f} GB/s (1 CPU / all){}\n", ++k, r.rates.fma_gflops_1,
                     r.rates.fma_gflops_all, r.rates.triad_gbps_1, r.rates.triad_gbps_all, r.load.busy ? "  [busy: " + r.load.reason + "]" : "");
  s += fmt::format("  spread (max−min)/max: FMA {:.1f}% / {:.1f}%, triad {:.1f}% / {:.1f}%\n", 100 * m.peak_spread.fma_gflops_1,
                   100 * m.peak_spread.fma_gflops_all, 100 * m.peak_spread.triad_gbps_1, 100 * m.peak_spread.triad_gbps_all);
  return s;
}

int run_hw(const HwOptions& o) {
  auto lock = make_machine_lock();
  auto m = this_machine(lock.get(), o.remeasure, o.budget);
  if (!m) throw UsageError(m.error().message);
  if (o.json) {
    fmt::print("{}\n", eval::to_json(*m).dump(2));
    return 0;
  }
  fmt::print("{}", key_values({
                       {"cpu", m->cpu_model},
                       {"host", m->hostname},
                       {"core", fmt::format("{} (family {}, model {}, stepping {}){}", m->microarch.empty() ? "unknown" : m->microarch,
                                            m->cpu_family, m->cpu_model_number, m->stepping,
                                            m->microarch_note.empty() ? "" : ": " + m->microarch_note)},
                       {"clock", m->clock_ghz > 0 ? fmt::format("{:.2f} GHz ({})", m->clock_ghz, m->clock_source) : "unknown"},
                       {"cores", fmt::format("{} logical ({} usable here), {} physical", m->logical_cpus, m->usable_cpus, m->physical_cores)},
                       {"isa", fmt::format("{}", fmt::join(m->isa, " "))},
                       {"caches", describe_caches(*m)},
                       {"openblas", fmt::format("core {}{} ({})", m->openblas_core,
                                                m->openblas_coretype_env.empty() ? "" : ", OPENBLAS_CORETYPE=" + m->openblas_coretype_env,
                                                m->openblas_config)},
                       {"fma f32", fmt::format("{:.1f} GFLOP/s on 1 core, {:.1f} on {} ({} code)", m->fma_gflops_1, m->fma_gflops_all,
                                               m->logical_cpus, m->peak_isa)},
                       {"triad", fmt::format("{:.1f} GB/s on 1 core, {:.1f} on {}", m->triad_gbps_1, m->triad_gbps_all, m->logical_cpus)},
                       {"peaks", describe_trust(*m)},
                       {"measured", m->measured_at},
                       {"kept in", m->peak_file.string()},
                   }));
  if (o.remeasure) fmt::print("{}", describe_runs(*m));
  return 0;
}

}  // namespace

void add_hw(CommandLine& cmd) {
  auto o = std::make_shared<HwOptions>();
  cmd.bind("json", o->json);
  cmd.bind("remeasure", o->remeasure);
  cmd.bind("peak-budget", o->budget);
  cmd.on_run([o] { return run_hw(*o); });
}

}  // namespace kforge::cli
