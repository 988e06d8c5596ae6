// The fault classifier turns an address into the sentence a kernel author reads.
#include "kforge/runner/fault_report.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>

namespace kforge::runner {
namespace {

struct Described {
  std::string category, detail;
};

Described describe(std::uintptr_t addr, int code) {
  char detail[512];
  const char* category = describe_fault_address(addr, code, detail, sizeof detail);
  return {category, detail};
}

// Regions registered once for the whole binary (the registry is append-only, like the runner's).
// An input mapped right under a thread stack's guard (mmap works top-down) must still be the
// input: the CI machine once reported a write to an input as a stack overflow.
class FaultReport : public ::testing::Test {
 protected:
  static constexpr std::uintptr_t kInput = 0x7f0000100000, kInputEnd = kInput + 8192;
  static constexpr std::uintptr_t kStack =
      kInputEnd + 4096 + 4096;  // guard page, then the stack's guard
  static void SetUpTestSuite() {
    // The stack first, as the runner's OpenMP warm-up registers stacks before the buffers.
    register_region(RegionKind::stack, "thread stack", kStack, kStack + (1 << 20),
                    kStack - 4096 - 65536, kStack + 4096);
    register_region(RegionKind::input, "x", kInput, kInputEnd, kInput - 4096, kInputEnd + 4096);
  }
};

TEST_F(FaultReport, WriteToAnInputUnderAStackIsTheInput) {
  auto d = describe(kInput + 40, SEGV_ACCERR);
  EXPECT_EQ(d.category, "input_write");
  EXPECT_EQ(d.detail, "write to read-only input 'x' at element byte offset 40");
}

TEST_F(FaultReport, OverrunOfTheInputIsOutOfBounds) {
  auto d = describe(kInputEnd + 12, SEGV_MAPERR);
  EXPECT_EQ(d.category, "out_of_bounds");
  EXPECT_EQ(d.detail, "access 12 bytes past the end of input 'x' (out of bounds)");
}

TEST_F(FaultReport, TheStackGuardIsAnOverflow) {
  EXPECT_EQ(describe(kStack - 100, SEGV_MAPERR).category, "stack_overflow");
}

TEST_F(FaultReport, NullAndWildPointers) {
  EXPECT_EQ(describe(8, SEGV_MAPERR).detail, "null pointer dereference");
  EXPECT_EQ(describe(0x10000000, SEGV_MAPERR).category, "wild");
}

}  // namespace
}  // namespace kforge::runner
