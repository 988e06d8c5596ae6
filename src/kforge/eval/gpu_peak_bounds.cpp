// Documented dense peaks by part name, per-SM rates by architecture, and the refusal of measured
// figures above them.
#include "kforge/eval/gpu_peak_bounds.h"

#include <fmt/format.h>

#include <array>

namespace kforge::eval {
namespace {

// Dense figures from the vendor's data sheets, GFLOP/s (no structured sparsity; FP16/BF16 with
// FP32 accumulation). Matched by a fragment of the name the driver gives ("NVIDIA H200",
// "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"): the more specific fragment first.
struct Documented {
  const char* fragment;
  double fp32, tf32, f16;
};
constexpr std::array<Documented, 8> kDocumented{{
    {"H200 NVL", 60'000, 417'500, 835'500},
    {"H200", 67'000, 494'700, 989'400},  // SXM
    {"H100 NVL", 60'000, 417'500, 835'500},
    {"H100 PCIe", 51'200, 378'000, 756'000},
    {"H100", 67'000, 494'700, 989'400},  // SXM ("H100 80GB HBM3")
    {"A100", 19'500, 156'000, 312'000},  // SXM4 and PCIe alike
    {"L40S", 91'600, 183'000, 362'000},
    {"RTX 4090", 82'600, 82'600, 165'200},
}};

// FLOP per clock per SM of each architecture: FP32 FMA, TF32 and FP16 tensor cores (dense, FP32
// accumulation), the data-center part's where a family has two rates, so the bound is loose
// rather than too tight. 0: none, or not known.
struct PerSm {
  int cc;  // compute capability × 10
  double fp32, tf32, f16;
};
constexpr std::array<PerSm, 8> kPerSm{{
    {70, 128, 0, 1024},     // V100: 80 SMs × 1.53 GHz × 1024 = 125 TFLOP/s FP16
    {75, 128, 0, 1024},     // T4
    {80, 128, 1024, 2048},  // A100: 108 × 1.41 GHz × 2048 = 312
    {86, 256, 512, 1024},   // A40, RTX 3090
    {89, 256, 512, 1024},   // L40S: 142 × 2.52 GHz × 1024 = 366
    {90, 256, 2048, 4096},  // H100 SXM: 132 × 1.83 GHz × 4096 = 989
    {100, 0, 4096, 8192},   // B200 (its FP32 rate is not bounded here)
    {120, 256, 512, 1024},  // RTX 5090, RTX PRO 6000
}};

struct Figure {
  const char* name;
  double GpuPeaks::*value;
  double GpuPeakBound::*bound;
  const char* what;
};
constexpr std::array<Figure, 3> kFigures{{
    {"fp32_fma_gflops", &GpuPeaks::fp32_fma_gflops, &GpuPeakBound::fp32_gflops, "FP32 FMA"},
    {"tensor_tf32_gflops", &GpuPeaks::tensor_tf32_gflops, &GpuPeakBound::tf32_gflops,
     "TF32 tensor-core"},
    {"tensor_f16_gflops", &GpuPeaks::tensor_f16_gflops, &GpuPeakBound::f16_gflops,
     "FP16 tensor-core"},
}};

}  // namespace

std::optional<GpuPeakBound> gpu_peak_bound(const runner::CudaDeviceInfo& d) {
  for (const auto& doc : kDocumented)
    if (d.name.find(doc.fragment) != std::string::npos)
      return GpuPeakBound{doc.fp32, doc.tf32, doc.f16, "documented for " + d.name};
  const int cc = d.major * 10 + d.minor;
  if (d.sms <= 0 || d.clock_khz <= 0) return std::nullopt;
  for (const auto& arch : kPerSm)
    if (arch.cc == cc) {
      const double giga_sm_clocks = d.sms * (d.clock_khz / 1e6);
      return GpuPeakBound{arch.fp32 * giga_sm_clocks, arch.tf32 * giga_sm_clocks,
                          arch.f16 * giga_sm_clocks,
                          fmt::format("{} SMs × {:.2f} GHz × {}'s rates per SM", d.sms,
                                      d.clock_khz / 1e6, d.arch())};
    }
  return std::nullopt;
}

void refuse_unreachable_peaks(GpuPeaks& peaks, const runner::CudaDeviceInfo& device) {
  auto bound = gpu_peak_bound(device);
  if (!bound) return;
  for (const auto& f : kFigures) {
    const double measured = peaks.*f.value, limit = (*bound).*f.bound;
    if (limit <= 0 || measured <= limit * kPeakSlack) continue;
    peaks.not_measured[f.name] = fmt::format(
        "{:.0f} GFLOP/s {} measured, above the {:.0f} the part can reach ({}): the measurement "
        "is wrong, not the part",
        measured, f.what, limit, bound->source);
    peaks.*f.value = 0;
  }
}

}  // namespace kforge::eval
