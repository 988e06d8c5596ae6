#pragma once
// How the GPU judge names a failed request of the device's process (gpu_judge.cpp, and the batched
// timing of gpu_batch_timing.cpp): a death by SIGSYS is the seccomp filter's, a sandbox_violation
// naming the trapped call; a hang is a timeout; anything else a runtime_error.

#include <optional>
#include <string>

#include "kforge/eval/runner_failure.h"
#include "kforge/targets/gpu_device.h"

namespace kforge::eval {

Judgement device_failure(const GpuDevice& d, const std::string& when, const std::string& message);

// Nothing when the call returned; else the verdict of how it did not.
std::optional<Judgement> judge_call(const GpuDevice& d, const DeviceCall& c,
                                    const std::string& when, double timeout_s);

}  // namespace kforge::eval
