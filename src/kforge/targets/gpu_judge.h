#pragma once
// The GPU side of the judge: the check and the paired timing of a kernel on a device, driven
// from kforge's process through GpuDevice. The inputs come from the same generator and secret
// seeds as on the CPU (host copies, uploaded to device buffers); outputs are poisoned with NaN
// before every call; every call ends with a device-wide synchronization (GpuDevice::call) and a
// watchdog; the outputs are peeked the instant the call returns, then the process must settle,
// the device is synchronized again (a deadline: busy past it is a timeout) and the outputs must
// read the same, so no work launched after the return escapes the check or the time; inputs are
// read back and compared byte for byte after every call; L2 is flushed before
// every timed call; the candidate and its partner are timed pair by pair on kforge's clock, on
// the same freshly perturbed inputs, and every timed output is compared with the partner's.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kforge/core/task_resolve.h"
#include "kforge/eval/evaluation.h"
#include "kforge/eval/paired_timing.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/targets/gpu_device.h"

namespace kforge::eval {

// One set of tensors on the host, in task order (inputs, or outputs).
struct HostSet {
  std::vector<std::vector<std::byte>> tensors;
};

// The device buffers of one kernel: the task's inputs, then its outputs.
struct DeviceSet {
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<DeviceBuffer> args() const;
};
Result<DeviceSet> allocate_set(GpuDevice& device, const core::ResolvedTask& task);

// A device process that could not get ready: a sandbox_violation naming the call when the seccomp
// filter killed it (the kernel's constructors run under the walls), else a runtime_error.
Judgement judge_start_failure(const std::string& message);

// Each check set on `device`: upload, poison, call, inputs unchanged, outputs against the
// reference. A judgement when the kernel fails (e.mismatch filled when it is incorrect).
std::optional<Judgement> gpu_check(GpuDevice& device, const DeviceSet& buffers,
                                   const core::ResolvedTask& task,
                                   const std::vector<HostSet>& inputs,
                                   const std::vector<HostSet>& references, double timeout_s,
                                   Evaluation& e);

// The clock the timing reads, in milliseconds (tests drive a fake one with their fake device).
using MsClock = std::function<double()>;
MsClock steady_ms_clock();

struct GpuTimingInfo;  // gpu_batch_timing.h

// Pairs until the budget is spent (at least min_pairs, at most max_pairs). `seed` gives each
// pair's perturbation seed (kforge's secret draws). `partner` may be null (timed alone). In
// batches of calls where both devices can (gpu_batch_timing.h), else call by call: each call
// uploads freshly perturbed inputs and is timed on kforge's clock around the request. `info`,
// when given, says which.
PairedTiming gpu_paired_timing(GpuDevice& candidate, const DeviceSet& candidate_buffers,
                               GpuDevice* partner, const DeviceSet* partner_buffers,
                               const core::ResolvedTask& task, const HostSet& timing_inputs,
                               const PairedTimingRequest& request,
                               const std::function<std::uint64_t()>& seed, const MsClock& clock,
                               GpuTimingInfo* info = nullptr);

}  // namespace kforge::eval
