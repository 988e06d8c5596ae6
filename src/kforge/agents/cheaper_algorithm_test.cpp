// Naming a cheaper algorithm: Winograd, FFT and Strassen by whole word in any case (a plan's prose
// or a source's comment), skipping work only for a task tagged degenerate, and a caveat that says
// the roofline fraction overstates the kernel.
#include "kforge/agents/cheaper_algorithm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::agents {

using ::testing::HasSubstr;

TEST(CheaperAlgorithm, NamesWinogradFftAndStrassen) {
  EXPECT_EQ(fewer_operations_algorithm("Use Winograd F(2x2, 3x3) tiles for the 3x3 conv.", false),
            "a Winograd convolution");
  EXPECT_EQ(fewer_operations_algorithm("// winograd_transform below", false), "");  // '_' joins
  EXPECT_EQ(fewer_operations_algorithm("// the WINOGRAD input transform", false),
            "a Winograd convolution");
  EXPECT_EQ(fewer_operations_algorithm("Convolve through FFTs of the padded planes.", false),
            "an FFT");
  EXPECT_EQ(fewer_operations_algorithm("a fast Fourier transform of each row", false), "an FFT");
  EXPECT_EQ(fewer_operations_algorithm("One level of Strassen on the 2048 blocks.", false),
            "Strassen's multiplication");
}

TEST(CheaperAlgorithm, DirectAlgorithmsAreNotFlagged) {
  EXPECT_EQ(fewer_operations_algorithm("Block the GEMM 6x16 with AVX-512 FMAs; an offtrack "
                                       "fftw-free direct convolution (im2col).",
                                       false),
            "");
  EXPECT_EQ(fewer_operations_algorithm("", true), "");
}

TEST(CheaperAlgorithm, SkippingCountsOnlyForADegenerateTask) {
  const char* plan = "The max and mean reduce a size-1 axis: skip them and write the row sums.";
  EXPECT_EQ(fewer_operations_algorithm(plan, true),
            "skipping work the task's notes call degenerate");
  EXPECT_EQ(fewer_operations_algorithm(plan, false), "");  // skipping a remainder loop, say
  EXPECT_EQ(fewer_operations_algorithm("Use the closed form: the group sums are zero.", true),
            "skipping work the task's notes call degenerate");
}

TEST(CheaperAlgorithm, CaveatSaysTheFractionOverstates) {
  EXPECT_EQ(roofline_caveat(""), "");
  const auto c = roofline_caveat("a Winograd convolution");
  EXPECT_THAT(c, HasSubstr("uses a Winograd convolution"));
  EXPECT_THAT(c, HasSubstr("fewer operations than the cost model counts"));
  EXPECT_THAT(c, HasSubstr("overstates"));
}

}  // namespace kforge::agents
