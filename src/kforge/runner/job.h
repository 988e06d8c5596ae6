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

struct SandboxSetup {
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  int threads = 1;
  std::string partner;            // trusted baseline .so timed against the candidate ("" = none)
  // A trusted candidate (a baseline or an expert being benchmarked) is loaded and warmed up here,
  // before the sandbox closes, and runs without seccomp: oneDNN generates code at run time.
  std::string trusted_candidate;
  std::string generator;          // generate.so for custom inputs ("" = none)
  std::uint64_t timing_seed = 0;  // inputs for timing (not secret: the secret ones are for checking)
  std::vector<std::string> readable;  // extra readable paths (scratch folder, baseline, generator)
  std::size_t memory_bytes = 0;   // address-space budget above what the runner holds after setup
  long cpu_seconds = 600;
  double rtol = 0, atol = 0;      // for comparing timed outputs with the partner's
  double perturb = 0.05;          // relative spread of the input perturbation between pairs
};

struct LoadRequest {
  std::string candidate;          // the untrusted kernel, copied into the scratch folder
  std::string untrusted_partner;  // --against: a second untrusted kernel ("" = the trusted baseline)
  int check_sets = 0;             // fds: check_sets sealed input files, then one results file
};

struct TimeRequest {
  double budget_seconds = 2.0;
  double warmup_seconds = 0.1;
  int min_pairs = 10;
  int max_pairs = 2000;
};

std::vector<TensorInfo> tensor_infos(const std::vector<core::ResolvedTensor>& tensors);

nlohmann::json to_json(const SandboxSetup& s);
Result<SandboxSetup> parse_setup(const nlohmann::json& j);
nlohmann::json to_json(const LoadRequest& r);
Result<LoadRequest> parse_load(const nlohmann::json& j);
nlohmann::json to_json(const TimeRequest& r);
Result<TimeRequest> parse_time(const nlohmann::json& j);
nlohmann::json tensors_to_json(const std::vector<TensorInfo>& tensors);
Result<std::vector<TensorInfo>> tensors_from_json(const nlohmann::json& j);

// Trusted jobs: run the task's reference (fds: inputs file, outputs file) or its generator
// (fds: inputs file, filled in place).
nlohmann::json reference_job(const std::string& library, const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs, int threads);
nlohmann::json generate_job(const std::string& library, std::uint64_t seed, const std::vector<TensorInfo>& inputs);

// Byte sizes in declaration order, for core::layout_tensors.
std::vector<std::size_t> byte_sizes(const std::vector<TensorInfo>& tensors);

}  // namespace kforge::runner
