#pragma once
// The evaluation of a kernel for a GPU target, read top to bottom:
//   compile (the target's compiler, the target's header) → link check (the target's policy) →
//   is there a device? (no: verdict no_device, nothing checked or timed) → the secret check
//   inputs and their reference outputs from the host task (the same seeds and reference as the
//   cpu target) → the kernel on its device: check → paired timing against the partner → rates.
// The device itself is behind GpuDevice (gpu_device.h); a factory starts one per kernel.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/targets/gpu_device.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::eval {

struct GpuEvalSetup {
  toolchain::Compiler* compiler = nullptr;  // the target's
  std::string header;                       // the target's kforge_task.h
  std::function<toolchain::LinkPolicy(toolchain::Role)> link_policy;
  // Empty when a device can run kernels; else why not ("no CUDA device: ...").
  std::function<std::string()> device_missing;
  // Starts the process that holds `artifact` on a device (trusted: an expert or baseline).
  std::function<Result<std::unique_ptr<GpuDevice>>(const std::filesystem::path& artifact,
                                                   bool trusted)>
      start_device;
  // The check phase again under each of these compute-sanitizer tools (memcheck, racecheck) on
  // the first check set, where it is installed: start_sanitized starts the kernel's process under
  // the tool. Empty: no sanitizer pass.
  std::vector<std::string> sanitizer_tools;
  std::function<Result<std::unique_ptr<GpuDevice>>(const std::filesystem::path& artifact,
                                                   const std::string& tool)>
      start_sanitized;
  // Hardware counters (a profile was asked for, EvalOptions::profile_seconds > 0): one check call
  // of the candidate in a process started under Nsight Compute (ncu_wrapper), whose CSV is read
  // into Evaluation::counters. Empty: ncu is not installed (counters_note says so).
  std::function<Result<std::unique_ptr<GpuDevice>>(const std::filesystem::path& artifact)>
      start_counted;
  // The partner to time against (the target's baseline, or --against): its artifact, or empty
  // to time the kernel alone.
  std::function<Result<std::filesystem::path>()> partner_artifact;
  // Or a partner that is its own device process from the start (a peer: start_python_gpu_device).
  std::function<Result<std::unique_ptr<GpuDevice>>()> start_partner;
  std::string partner_name;
  // The clock the timing reads (empty: the steady clock); tests drive it with their fake device.
  std::function<double()> clock;
  // The device's measured peaks (gpu_profile.h), for the roofline; null: no roofline.
  const GpuPeaks* peaks = nullptr;
};

// The --against kernel (options.against_*) as the partner: compiled by the setup's compiler with
// its header when the timing starts.
void partner_against(GpuEvalSetup& setup, const EvalOptions& options);

Evaluation evaluate_gpu(const TaskContext& host, const GpuEvalSetup& setup,
                        const std::string& source, const std::string& file_name,
                        const EvalOptions& options);

}  // namespace kforge::eval
