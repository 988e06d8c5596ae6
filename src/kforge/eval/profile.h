#pragma once
// The profile of a correct, timed kernel: where it stands against the roofline, where its time
// goes (sampled hot lines of its source, time in the OpenMP runtime and libraries), and what the
// compiler says about its loops. What the profiler agent reads, and what `kforge eval --profile`
// shows.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/task_resolve.h"
#include "kforge/eval/hot_instructions.h"
#include "kforge/eval/machine.h"
#include "kforge/toolchain/ptxas_report.h"
#include "kforge/toolchain/vectorization_report.h"

namespace kforge::eval {

struct HotLine {
  int line = 0;
  long samples = 0;
  double share = 0;  // of all samples
  std::string function;
  std::string source;
};

struct Profile {
  long samples = 0;
  int calls = 0;
  std::map<std::string, double>
      object_share;  // "kernel", "libgomp.so.1", "libm.so.6", … → share of samples
  std::vector<HotLine> hot_lines;  // kernel source lines, hottest first
  // The hottest machine instructions, when one source line holds most of the kernel's samples
  // (add_hot_instructions says why only then); empty otherwise.
  HotInstructions hot_instructions;
  std::vector<toolchain::VectorRemark> vectorization;
  // Roofline position at the measured median time.
  double gflops = 0, gbps = 0, roofline = 0;
  double arithmetic_intensity = 0;  // FLOP per byte of the task's cost model
  double machine_balance = 0;       // peak FLOP/s over peak bytes/s for the thread count
  std::string bound;                // "compute" or "memory" by the roofline model
  std::string roofline_note;        // why the roofline is above 100% ("" when it is not)
  // A GPU kernel's per-kernel ptxas figures (registers, spills, shared memory, occupancy): what
  // there is to read without the device's counters. Empty for cpu kernels.
  std::vector<toolchain::KernelResources> gpu_kernels;

  std::string summary() const;  // text for humans: the roofline, then samples_text()
  std::string bound_text()
      const;  // "memory-bound by the cost model: 0.25 FLOP/byte against a machine balance of 8.1"
  std::string samples_text() const;  // where the samples fell: by object, and the hot lines
};

// Maps kernel offsets (from the runner's "profiled" message) to source lines of `file_name` in
// `shared_object` (built with -g) using addr2line.
std::vector<HotLine> hot_lines_from_samples(const nlohmann::json& kernel_offsets,
                                            long total_samples, const std::string& shared_object,
                                            const std::string& file_name,
                                            const std::string& source);

// The hottest source line's share of the kernel's own samples from which its instructions are
// shown.
inline constexpr double kDominantLineShare = 0.5;

// Fills p.hot_instructions from the same offsets when p.hot_lines has a line holding at least
// kDominantLineShare of the kernel's samples; a disassembler that fails leaves a note there.
void add_hot_instructions(Profile& p, const nlohmann::json& kernel_offsets,
                          const std::string& shared_object,
                          const DisassemblerOptions& options = {});

// The 95% interval (Wilson score) of a share of `hits` samples out of `total`.
std::pair<double, double> share_interval(long hits, long total);

void fill_roofline(Profile& p, const core::ResolvedTask& task, double median_seconds,
                   const MachineProfile& m, int threads);

nlohmann::json to_json(const Profile& p);

}  // namespace kforge::eval
