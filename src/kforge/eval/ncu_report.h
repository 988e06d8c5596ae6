#pragma once
// Nsight Compute's findings for the profiler: `ncu --csv` (the details page) is one row per
// metric per profiled kernel launch, under a header that names the columns ("ID", "Kernel Name",
// "Section Name", "Metric Name", "Metric Unit", "Metric Value"; newer versions add "Block Size",
// "Grid Size", "Device", "CC", ...). Lines before the header are ncu's own (==PROF==, ==WARNING==,
// ==ERROR==). Values carry thousands separators ("1,048,576") or "n/a".

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kforge/core/result.h"

namespace kforge::eval {

struct NcuMetric {
  std::string section;           // "GPU Speed Of Light Throughput"
  std::string name;              // "DRAM Throughput"
  std::string unit;              // "%", "usecond", "register/thread"
  std::string value;             // as printed
  std::optional<double> number;  // the value without separators; none for "n/a" or text
};

struct NcuKernel {
  std::string id;                  // the launch's ID column
  std::string name;                // the kernel's (demangled) name
  std::string block, grid;         // "(256, 1, 1)" when ncu reports them
  std::vector<NcuMetric> metrics;  // in ncu's order
  const NcuMetric* find(const std::string& metric) const;
};

// The launches in the output, in order. An error when there is no CSV header: it names ncu's own
// error line when it printed one (ERR_NVGPUCTRPERM: no permission to read the counters).
Result<std::vector<NcuKernel>> parse_ncu_csv(const std::string& output);

// For the profiler: per launch its grid and block, then one line per section with its metrics
// ("DRAM Throughput 85.2 %"), at most `max_launches` launches.
std::string format_ncu(const std::vector<NcuKernel>& kernels, std::size_t max_launches = 4);

// The options that run a command under ncu with the sections the profiler reads, CSV on stdout.
std::vector<std::string> ncu_wrapper(const std::string& ncu);

void to_json(nlohmann::json& j, const NcuKernel& k);
void from_json(const nlohmann::json& j, NcuKernel& k);

}  // namespace kforge::eval
