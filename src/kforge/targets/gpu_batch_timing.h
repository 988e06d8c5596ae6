#pragma once
// The paired timing on a GPU in batches of calls: the default wherever the device can run them
// (kforge-run-cuda with its perturbation kernel; the fake device). Per call, inputs are made fresh
// on the device from pristine copies uploaded once (kforge's perturbation, its factors drawn on
// kforge's side), outputs poisoned, L2 flushed, the device idle when the call starts; the call is
// timed by events on the kernel's stream, or by the runner's clock to the device-wide
// synchronization when that shows work the events missed (another stream). A sample gathers enough
// calls for about 2 ms of kernel time, so microsecond kernels are timed as precisely as long ones.
// Every batch's reported times are bounded by kforge's own clock around it (above: they cannot
// exceed it; below: over the run they must account for what kforge's clock saw, less the measured
// cost of a batch without the call). Outputs of calls chosen after each batch are compared with
// the partner's on the same inputs (samples of large tensors); the outputs must not change after
// the last call returned; the inputs of the last call are compared with kforge's own perturbation.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kforge/core/task_resolve.h"
#include "kforge/eval/paired_timing.h"
#include "kforge/targets/gpu_device.h"
#include "kforge/targets/gpu_judge.h"

namespace kforge::eval {

// How a GPU timing was taken, for the evaluation's notes.
struct GpuTimingInfo {
  bool batched = false;
  int calls_per_sample = 1;
  std::string why_not_batched;  // the device's reason, when it timed call by call
};

// Nothing when a device cannot time batches (the caller times call by call); else the timing, with
// the candidate's and partner's per-call milliseconds per sample.
std::optional<PairedTiming> gpu_batched_timing(GpuDevice& candidate, const DeviceSet& candidate_set,
                                               GpuDevice* partner, const DeviceSet* partner_set,
                                               const core::ResolvedTask& task,
                                               const HostSet& timing_inputs,
                                               const PairedTimingRequest& request,
                                               const std::function<std::uint64_t()>& seed,
                                               const MsClock& clock, GpuTimingInfo& info);

}  // namespace kforge::eval
