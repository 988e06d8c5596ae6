#pragma once
// What `kforge hw` reports and the roofline uses: the CPU (model, ISA extensions, cores, caches)
// read from the system, and measured peaks (kforge-peak), cached in .kforge/hw.json per CPU.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"

namespace kforge::eval {

struct CacheLevel {
  int level = 0;
  std::string type;  // Data, Instruction, Unified
  std::size_t size_bytes = 0;
  int shared_by_cpus = 1;
};

struct MachineProfile {
  std::string cpu_model;
  std::string vendor;                  // vendor_id: GenuineIntel, AuthenticAMD
  int cpu_family = 0, cpu_model_number = 0, stepping = 0;
  std::string microarch, microarch_note;  // microarch.h; "" when unknown
  double clock_ghz = 0;                // the highest clock the system reports (0: none)
  std::string clock_source;            // where clock_ghz comes from: "cpufreq max", "model name", "cpu MHz"
  std::vector<std::string> isa;  // the SIMD extensions that matter for kernels
  int logical_cpus = 0;
  int physical_cores = 0;
  std::vector<CacheLevel> caches;
  std::string openblas_core;      // what OpenBLAS picked on this machine
  std::string openblas_coretype_env;
  std::string openblas_config;
  double fma_gflops_1 = 0, fma_gflops_all = 0;  // measured f32 peaks
  double triad_gbps_1 = 0, triad_gbps_all = 0;  // measured bandwidth
  std::string peak_isa;
  std::string measured_at;  // ISO date

  double peak_gflops(int threads) const;
  double peak_gbps(int threads) const;
};

// Reads the cached profile or measures it (a few seconds). `refresh` forces a new measurement.
Result<MachineProfile> machine_profile(const std::filesystem::path& state_dir, bool refresh = false);
// The CPU description alone (no measurement), e.g. for cache keys and quick displays.
MachineProfile describe_cpu();

nlohmann::json to_json(const MachineProfile& m);

// Fraction of the roofline reached: the time the roofline allows over the measured time.
double roofline_fraction(double flops, double bytes, double seconds, const MachineProfile& m, int threads);

}  // namespace kforge::eval
