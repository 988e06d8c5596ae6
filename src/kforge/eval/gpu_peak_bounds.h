#pragma once
// What a GPU can reach, so that no measured peak above it is believed: the dense peaks its
// vendor documents (FP32, TF32 and FP16/BF16 tensor cores with FP32 accumulation) for the parts
// kforge knows by name, else a bound from its SMs × peak clock × what one SM of its architecture
// does per clock. A figure above the bound is an elided or mistimed measurement (on an H200 the
// first tensor-core loop gave 5.08 PFLOP/s FP16 for a part documented at 0.99) and is refused.

#include <optional>
#include <string>

#include "kforge/eval/gpu_profile.h"
#include "kforge/runner/cuda_driver.h"

namespace kforge::eval {

struct GpuPeakBound {
  double fp32_gflops = 0;  // 0: no bound known for this figure
  double tf32_gflops = 0;
  double f16_gflops = 0;
  std::string source;  // "documented for NVIDIA H200" or "132 SMs × 1.98 GHz × sm_90's rates"
};

// Measurement noise a true figure may show above the documented peak (the clock may run a little
// above its documented boost for a moment; CUDA events round to half a microsecond).
inline constexpr double kPeakSlack = 1.03;

// The part's bound, or nullopt for a part kforge neither knows by name nor by architecture.
std::optional<GpuPeakBound> gpu_peak_bound(const runner::CudaDeviceInfo& device);

// Zeroes each figure above its bound (× kPeakSlack) and records why in peaks.not_measured; the
// figures the bound holds are kept. Nothing changes without a bound.
void refuse_unreachable_peaks(GpuPeaks& peaks, const runner::CudaDeviceInfo& device);

}  // namespace kforge::eval
