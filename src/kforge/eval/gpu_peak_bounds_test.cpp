// The bound on GPU peaks, with the figures recorded on the first H200 run (2026-12-04): its
// tensor-core loop claimed 5075703 GFLOP/s FP16 and 959009 TF32 for a part documented at 989400
// and 494700 (the loop's identical accumulators and constant fragments let ptxas drop 7 of every
// 8 HMMAs); its FP32 figure, 62958 of a documented 67000, was right. A bound from the SMs and the
// clock holds a part not in the table; a part known by neither is left alone.
#include "kforge/eval/gpu_peak_bounds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kforge::eval {
namespace {

runner::CudaDeviceInfo h200() {
  runner::CudaDeviceInfo d;
  d.name = "NVIDIA H200";
  d.major = 9;
  d.minor = 0;
  d.sms = 132;
  d.clock_khz = 1980000;
  return d;
}

GpuPeaks recorded_on_the_h200() { return {62958, 5075703, 959009, 3945, {}}; }

TEST(GpuPeakBounds, TheH200sTensorFiguresAreRefusedAndItsFp32Kept) {
  auto peaks = recorded_on_the_h200();
  refuse_unreachable_peaks(peaks, h200());
  EXPECT_EQ(peaks.fp32_fma_gflops, 62958);
  EXPECT_EQ(peaks.hbm_gbps, 3945);
  EXPECT_EQ(peaks.tensor_f16_gflops, 0);
  EXPECT_EQ(peaks.tensor_tf32_gflops, 0);
  ASSERT_EQ(peaks.not_measured.size(), 2u);
  EXPECT_NE(peaks.not_measured["tensor_f16_gflops"].find("5075703 GFLOP/s FP16 tensor-core"),
            std::string::npos)
      << peaks.not_measured["tensor_f16_gflops"];
  EXPECT_NE(peaks.not_measured["tensor_f16_gflops"].find("989400"), std::string::npos);
  EXPECT_NE(peaks.not_measured["tensor_tf32_gflops"].find("documented for NVIDIA H200"),
            std::string::npos);
  EXPECT_EQ(peaks.not_measured.count("fp32_fma_gflops"), 0u);
}

TEST(GpuPeakBounds, FiguresTheDocumentedPeaksAllowAreKept) {
  GpuPeaks honest{62958, 650000, 320000, 3945, {}};  // mma.sync reaches about 2/3 of wgmma's
  refuse_unreachable_peaks(honest, h200());
  EXPECT_TRUE(honest.not_measured.empty());
  EXPECT_EQ(honest.tensor_f16_gflops, 650000);
  // Within the measurement slack of the documented figure: kept; beyond it: refused.
  GpuPeaks at_the_edge{67000 * 1.02, 989400 * 1.02, 494700 * 1.02, 4800, {}};
  refuse_unreachable_peaks(at_the_edge, h200());
  EXPECT_TRUE(at_the_edge.not_measured.empty());
  GpuPeaks past_it{67000 * 1.05, 0, 0, 4800, {}};
  refuse_unreachable_peaks(past_it, h200());
  EXPECT_EQ(past_it.fp32_fma_gflops, 0);
  EXPECT_EQ(past_it.not_measured.count("fp32_fma_gflops"), 1u);
}

TEST(GpuPeakBounds, TheDocumentedPartsAreFoundByTheDriversNames) {
  auto bound_of = [](const std::string& name) {
    runner::CudaDeviceInfo d;
    d.name = name;
    return gpu_peak_bound(d);
  };
  EXPECT_EQ(bound_of("NVIDIA H100 80GB HBM3")->f16_gflops, 989400);
  EXPECT_EQ(bound_of("NVIDIA H100 PCIe")->f16_gflops, 756000);
  EXPECT_EQ(bound_of("NVIDIA H200 NVL")->tf32_gflops, 417500);
  EXPECT_EQ(bound_of("NVIDIA A100-SXM4-80GB")->tf32_gflops, 156000);
  EXPECT_EQ(bound_of("NVIDIA A100-SXM4-80GB")->fp32_gflops, 19500);
  EXPECT_EQ(bound_of("NVIDIA L40S")->f16_gflops, 362000);
  EXPECT_EQ(bound_of("NVIDIA GeForce RTX 4090")->fp32_gflops, 82600);
  // Neither in the table nor of a known architecture (no SMs, no clock): no bound.
  EXPECT_FALSE(bound_of("NVIDIA Made-Up").has_value());
}

// A Hopper part not in the table: 132 SMs × 1.98 GHz × (256 FP32, 2048 TF32, 4096 FP16) FLOP per
// SM and clock = 66.9, 535 and 1070 TFLOP/s, which still refuses the H200's recorded figures.
TEST(GpuPeakBounds, APartNotInTheTableIsBoundBySmsClockAndArchitecture) {
  auto d = h200();
  d.name = "NVIDIA Hopper Engineering Sample";
  auto bound = gpu_peak_bound(d);
  ASSERT_TRUE(bound.has_value());
  EXPECT_NEAR(bound->fp32_gflops, 66908, 1);
  EXPECT_NEAR(bound->tf32_gflops, 535265, 1);
  EXPECT_NEAR(bound->f16_gflops, 1070530, 1);
  EXPECT_NE(bound->source.find("132 SMs × 1.98 GHz × sm_90"), std::string::npos) << bound->source;
  auto peaks = recorded_on_the_h200();
  refuse_unreachable_peaks(peaks, d);
  EXPECT_EQ(peaks.fp32_fma_gflops, 62958);
  EXPECT_EQ(peaks.tensor_f16_gflops, 0);
  EXPECT_EQ(peaks.tensor_tf32_gflops, 0);
}

// The peak program's own refusal (a loop whose result was not the one due) reaches kforge as a
// figure of 0 with its reason, and both survive the per-user cache's JSON.
TEST(GpuPeakBounds, ThePeakProgramsRefusalIsKeptWithItsReason) {
  auto j = nlohmann::json::parse(R"({"name": "NVIDIA H200", "fp32_fma_gflops": 62958.0,
      "tensor_f16_gflops": 0.0, "tensor_tf32_gflops": 320000.0, "hbm_gbps": 3945.0,
      "not_measured": {"tensor_f16_gflops": "FP16 tensor-core loop computed 16 where 130 was due"},
      "error": ""})");
  auto peaks = parse_gpu_peaks(j);
  EXPECT_EQ(peaks.tensor_f16_gflops, 0);
  EXPECT_EQ(peaks.tensor_tf32_gflops, 320000);
  EXPECT_NE(peaks.not_measured["tensor_f16_gflops"].find("where 130 was due"), std::string::npos);
  GpuProfile profile{h200(), peaks, true};
  nlohmann::json kept = profile;
  EXPECT_EQ(parse_gpu_peaks(kept).not_measured, peaks.not_measured);
}

}  // namespace
}  // namespace kforge::eval
