#pragma once
// What `kforge hw` reports and the roofline uses: the CPU (model, ISA extensions, cores, caches)
// read from the system, and measured peaks (kforge-peak), cached once per machine in the per-user
// cache (<cache>/peaks/), shared by every working directory.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/load_probe.h"
#include "kforge/eval/peak_measure.h"

namespace kforge::eval {

class MachineLock;

struct CacheLevel {
  int level = 0;
  std::string type;  // Data, Instruction, Unified
  std::size_t size_bytes = 0;
  int shared_by_cpus = 1;
};

struct MachineProfile {
  std::string cpu_model;
  std::string vendor;  // vendor_id: GenuineIntel, AuthenticAMD
  int cpu_family = 0, cpu_model_number = 0, stepping = 0;
  std::string microarch, microarch_note;  // microarch.h; "" when unknown
  double clock_ghz = 0;                   // the highest clock the system reports (0: none)
  std::string clock_source;  // where clock_ghz comes from: "cpufreq max", "model name", "cpu MHz"
  std::vector<std::string> isa;  // the SIMD extensions that matter for kernels
  int logical_cpus = 0;
  int physical_cores = 0;
  std::vector<CacheLevel> caches;
  std::string openblas_core;  // what OpenBLAS picked on this machine
  std::string openblas_coretype_env;
  std::string openblas_config;
  double fma_gflops_1 = 0, fma_gflops_all = 0;  // measured f32 peaks
  double triad_gbps_1 = 0, triad_gbps_all = 0;  // measured bandwidth
  std::string peak_isa;
  std::string measured_at;  // ISO date and time, UTC

  // How far the peaks can be trusted, and where they are kept.
  std::string hostname;
  int usable_cpus = 0;       // this process's affinity mask
  bool provisional = false;  // measured on a busy machine: re-measured on a later run
  std::string provisional_reason;
  LoadVerdict peak_load;           // the busiest moment of the measurement
  std::vector<PeakRun> peak_runs;  // every run of the measurement
  PeakRates peak_spread;           // (max − min) / max over the runs
  double measured_unix = 0;        // identifies the measurement (stale marks name it)
  PeakRates explained;             // rates that beat these peaks yet a quiet re-measurement did not
  std::filesystem::path peak_file;  // the cached record ("" when not cached)

  double peak_gflops(int threads) const;
  double peak_gbps(int threads) const;
  // Bytes of data and unified caches that `threads` threads reach together.
  double cache_bytes(int threads) const;
};

struct MachineProfileOptions {
  bool remeasure = false;       // measure even when the cached peaks are good
  MachineLock* lock = nullptr;  // measure with the machine to this process (and across processes)
  std::function<void(std::string_view)> progress;
  PeakMeasureOptions measure;        // its budget and tolerance (cpus is filled in)
  double provisional_retry_s = 300;  // provisional peaks are re-measured once this old
};

// Reads this machine's cached peaks from `cache_dir` (the per-user cache), or measures them when
// absent, stale (proven low), implausible (all CPUs slower than one), provisional and old enough,
// or when asked to. A measurement that ends provisional keeps, per rate, the best of it and of
// the record it replaces.
Result<MachineProfile> machine_profile(const std::filesystem::path& cache_dir,
                                       const MachineProfileOptions& options = {});
// The CPU description alone (no measurement), e.g. for cache keys and quick displays.
MachineProfile describe_cpu();

// When OpenBLAS runs its generic kernels on a CPU with AVX2 or AVX-512 (a part its release does
// not know: 0.3.21 picks Prescott on Emerald Rapids), the sentence saying so and the
// OPENBLAS_CORETYPE that would fit; empty otherwise. libtorch's GEMMs (the default partner) then
// run several times slower than they could, and every speedup over libtorch is inflated.
std::string openblas_core_warning(const MachineProfile& m);

nlohmann::json to_json(const MachineProfile& m);

}  // namespace kforge::eval
