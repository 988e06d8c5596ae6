// ptxas's verbose report into per-kernel resources, and the occupancy arithmetic checked against
// figures worked out by hand from the CUDA occupancy rules for sm_90.
#include "kforge/toolchain/ptxas_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kforge::toolchain {
namespace {

// nvcc 13.0's output for two kernels (one with shared memory, one with a stack frame and spills).
const char* kReport =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z3bigPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z3bigPf\n"
    "    256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 128 registers, used 0 barriers, 256 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 116.095 ms\n"
    "ptxas info    : Compiling entry function '_Z3rmsPKfPfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z3rmsPKfPfi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n";

TEST(PtxasReport, ParsesEveryEntryFunction) {
  auto k = parse_ptxas_report(kReport);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].function, "_Z3bigPf");
  EXPECT_EQ(k[0].arch, "sm_90");
  EXPECT_EQ(k[0].registers, 128);
  EXPECT_EQ(k[0].stack_bytes, 256);
  EXPECT_EQ(k[0].spill_store_bytes, 8);
  EXPECT_EQ(k[0].spill_load_bytes, 12);
  EXPECT_EQ(k[1].registers, 10);
  EXPECT_EQ(k[1].barriers, 1);
  EXPECT_EQ(k[1].shared_bytes, 1024);
  EXPECT_EQ(k[1].constant_bytes, 380);
  EXPECT_NE(format_resources(k).find("spills registers"), std::string::npos);
}

TEST(PtxasReport, OutputWithoutAReportHasNoKernels) {
  EXPECT_TRUE(parse_ptxas_report("kernel.cu(3): error: expected a ';'\n").empty());
}

// sm_90: 64K registers, 2048 threads, 32 blocks, 228 KiB shared per SM.
TEST(Occupancy, RegistersLimitItAsTheCalculatorSays) {
  KernelResources r{.function = "f", .arch = "sm_90", .registers = 128};
  // 128 regs × 32 lanes = 4096 per warp; 65536 / 4096 = 16 warps = 2 blocks of 256: 25%.
  auto o = occupancy(r, 256);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  EXPECT_EQ(o.limiter, "registers");
  // 32 registers: 64 warps fit; 8 blocks of 256 threads = 2048 threads: full.
  r.registers = 32;
  o = occupancy(r, 256);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
}

TEST(Occupancy, SharedMemoryLimitsItWithTheRuntimesReservation) {
  KernelResources r{.function = "f", .arch = "sm_90", .registers = 32, .shared_bytes = 48 * 1024};
  // (48 KiB + 1 KiB reserved) per block: 233472 / 50176 = 4 blocks of 128 threads = 16 warps.
  auto o = occupancy(r, 128);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, "shared memory");
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  // More than a block may have: it cannot launch at all.
  EXPECT_EQ(occupancy(r, 128, 200 * 1024).blocks_per_sm, 0);
}

TEST(Occupancy, ResourcesSurviveTheCacheRecord) {
  KernelResources r{.function = "g", .arch = "sm_80", .registers = 40, .shared_bytes = 4096};
  nlohmann::json j = r;
  auto back = j.get<KernelResources>();
  EXPECT_EQ(back.registers, 40);
  EXPECT_EQ(back.shared_bytes, 4096);
  EXPECT_EQ(back.arch, "sm_80");
}

}  // namespace
}  // namespace kforge::toolchain
