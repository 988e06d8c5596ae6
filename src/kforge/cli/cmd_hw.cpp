// kforge hw [--json] [--refresh]: this machine, and its measured peaks.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/eval/machine.h"

namespace kforge::cli {
namespace {

struct HwOptions {
  bool json = false, refresh = false;
};

int run_hw(const HwOptions& o) {
  progress("measuring peaks (cached after the first run)");
  auto m = eval::machine_profile(core::state_dir(), o.refresh);
  if (!m) throw UsageError(m.error().message);
  if (o.json) {
    fmt::print("{}\n", eval::to_json(*m).dump(2));
    return 0;
  }
  std::string caches;
  for (const auto& c : m->caches)
    caches += fmt::format("{}L{}{} {} KiB{}", caches.empty() ? "" : ", ", c.level, c.type == "Data" ? "d" : c.type == "Instruction" ? "i" : "",
                          c.size_bytes >> 10, c.shared_by_cpus > 1 ? fmt::format(" (shared by {})", c.shared_by_cpus) : "");
  fmt::print("{}", key_values({
                       {"cpu", m->cpu_model},
                       {"core", fmt::format("{} (family {}, model {}, stepping {}){}", m->microarch.empty() ? "unknown" : m->microarch,
                                            m->cpu_family, m->cpu_model_number, m->stepping,
                                            m->microarch_note.empty() ? "" : ": " + m->microarch_note)},
                       {"clock", m->clock_ghz > 0 ? fmt::format("{:.2f} GHz ({})", m->clock_ghz, m->clock_source) : "unknown"},
                       {"cores", fmt::format("{} logical, {} physical", m->logical_cpus, m->physical_cores)},
                       {"isa", fmt::format("{}", fmt::join(m->isa, " "))},
                       {"caches", caches},
                       {"openblas", fmt::format("core {}{} ({})", m->openblas_core,
                                                m->openblas_coretype_env.empty() ? "" : ", OPENBLAS_CORETYPE=" + m->openblas_coretype_env,
                                                m->openblas_config)},
                       {"fma f32", fmt::format("{:.1f} GFLOP/s on 1 core, {:.1f} on {} ({} code)", m->fma_gflops_1, m->fma_gflops_all,
                                               m->logical_cpus, m->peak_isa)},
                       {"triad", fmt::format("{:.1f} GB/s on 1 core, {:.1f} on {}", m->triad_gbps_1, m->triad_gbps_all, m->logical_cpus)},
                       {"measured", m->measured_at},
                   }));
  return 0;
}

}  // namespace

void add_hw(CLI::App& cmd, int& exit_status) {
  auto o = std::make_shared<HwOptions>();
  cmd.add_flag("--json", o->json, "Print JSON");
  cmd.add_flag("--refresh", o->refresh, "Measure the peaks again");
  cmd.callback([o, &exit_status] { exit_status = run_hw(*o); });
}

}  // namespace kforge::cli
