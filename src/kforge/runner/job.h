#pragma once
// What the parent tells the runner: the tensors of the task at one size, and the settings of
// one evaluation. The parent builds these messages with the same functions the runner parses.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/core/task_resolve.h"

namespace kforge::runner {

struct TensorInfo {
  std::string name;
  core::DType dtype = core::DType::f32;
  std::int64_t numel = 0;
  std::size_t bytes = 0;
  core::InitSpec init;
  bool mutate = false;
  core::ResolvedTensor as_resolved() const;
};

// One kernel process: the implementation it loads, the tensors it sees, and its limits. It is
// told nothing that decides a verdict: no tolerance, no partner, no seed, no clock to trust.
struct KernelSetup {
  bool trusted =
      false;            // baseline, expert, reference: loaded before the sandbox closes, no seccomp
  std::string library;  // the .so, copied into the evaluation's scratch folder
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  int input_sets = 1;   // descriptors: that many input files (0: timing), then the output files,
                        // then the control page
  int output_sets = 2;  // two sets that the candidate and its partner trade every pair
  int threads = 1;
  // Thread i is pinned to cpus[i % size] (kforge's choice, cpu_choice.h: the least busy first, for
  // the thread that also runs the kernel's serial code); empty: the allowed CPUs in order.
  std::vector<int> cpus;
  std::vector<std::string> readable;  // extra readable paths (the scratch folder)
  std::vector<std::string> preload;   // sonames the kernel needs, loaded before the sandbox closes
  std::size_t memory_bytes = 0;  // address-space budget above what the runner holds after setup
  long cpu_seconds = 600;
};

std::vector<TensorInfo> tensor_infos(const std::vector<core::ResolvedTensor>& tensors);

nlohmann::json to_json(const KernelSetup& s);
Result<KernelSetup> parse_setup(const nlohmann::json& j);
nlohmann::json tensors_to_json(const std::vector<TensorInfo>& tensors);
Result<std::vector<TensorInfo>> tensors_from_json(const nlohmann::json& j);

// Trusted jobs: run the task's reference (fds: inputs file, outputs file) or its generator
// (fds: inputs file, filled in place).
nlohmann::json reference_job(const std::string& library, const std::vector<TensorInfo>& inputs,
                             const std::vector<TensorInfo>& outputs, int threads);
nlohmann::json generate_job(const std::string& library, std::uint64_t seed,
                            const std::vector<TensorInfo>& inputs);

// Byte sizes in declaration order, for core::layout_tensors.
std::vector<std::size_t> byte_sizes(const std::vector<TensorInfo>& tensors);

}  // namespace kforge::runner
