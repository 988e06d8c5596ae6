#pragma once
// The GPU's profile for `kforge hw --target cuda` and the GPU roofline: what the driver says about
// the device (name, SMs, memory, L2) and its peaks as measured by kforge-gpu-peak (gpu/gpu_peak.cu,
// compiled with nvcc on first use): FP32 FMA, tensor-core mma.sync (FP16 and TF32 inputs), memory
// bandwidth. Kept per device in the per-user cache; measured again on request.

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kforge/core/result.h"
#include "kforge/runner/cuda_driver.h"

namespace kforge::eval {

struct GpuPeaks {
  double fp32_fma_gflops = 0;
  double tensor_f16_gflops = 0;
  double tensor_tf32_gflops = 0;
  double hbm_gbps = 0;
  // A figure that is 0 because it was not believed, by its JSON name ("tensor_f16_gflops"):
  // why. The peak program refuses a loop whose result is not the one due (elided work);
  // gpu_peak_bounds.h a figure above what the part can reach.
  std::map<std::string, std::string> not_measured;
  // FLOP per byte where the FP32 roofline turns from memory-bound to compute-bound.
  double ridge_fp32() const { return hbm_gbps > 0 ? fp32_fma_gflops / hbm_gbps : 0; }
};

struct GpuProfile {
  runner::CudaDeviceInfo device;
  GpuPeaks peaks;
  bool measured_now = false;
};

struct GpuProfileOptions {
  std::filesystem::path cache_dir;  // the per-user cache
  std::filesystem::path cuda_home = "/usr/local/cuda";
  bool remeasure = false;
};

// The first device and its peaks, each held to what the part can reach (gpu_peak_bounds.h), the
// cached ones too; an error starting "no CUDA device" where there is none.
Result<GpuProfile> gpu_profile(const GpuProfileOptions& options);

// The fraction of the FP32 roofline a kernel reached: achieved FLOP/s over
// min(peak FLOP/s, intensity × peak bandwidth).
double gpu_roofline_fraction(double flops, double bytes, double seconds, const GpuPeaks& peaks);

GpuPeaks parse_gpu_peaks(const nlohmann::json& j);
void to_json(nlohmann::json& j, const GpuProfile& p);

}  // namespace kforge::eval
