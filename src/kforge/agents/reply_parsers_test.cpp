// Every parser on good and malformed replies: the error says what was wrong, in words the model
// can act on (it is sent back as the corrective retry).
#include "kforge/agents/reply_parsers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::agents {
namespace {

using ::testing::HasSubstr;

const char* kPlan = R"(Here is my plan.
## Analysis
RMSNorm reads 32 MiB and writes 32 MiB.
## Bottleneck
Memory bandwidth.
## Strategy
One pass per row with AVX2.
## Blocking
None: a row is 16 KiB and stays in L1.
## Vectorization
The D loop, 8 lanes, four accumulators.
## Threading
Rows split statically over 2 threads.
## Tunables
UNROLL = {1, 2, 4}
## Expected gain
8x over the baseline.
)";

const char* kKernel =
    "```cpp\n#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, const float* s, "
    "float* y) {\n  y[0] = x[0];\n}\n```\n";

}  // namespace

TEST(ParsePlan, AcceptsAllSectionsAndExtractsTheStrategy) {
  auto p = parse_plan(kPlan);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->strategy, "One pass per row with AVX2.");
}

TEST(ParsePlan, NamesMissingAndEmptySections) {
  std::string plan = kPlan;
  plan.replace(plan.find("## Threading"), std::string("## Threading").size(), "## Threads");
  plan.replace(plan.find("8x over the baseline."), std::string("8x over the baseline.").size(), "");
  auto p = parse_plan(plan);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.error().message, HasSubstr("## Threading"));
  EXPECT_THAT(p.error().message, HasSubstr("## Expected gain"));
  EXPECT_THAT(p.error().message, ::testing::Not(HasSubstr("## Analysis")));
}

TEST(ParseKernel, TakesTheCodeBlock) {
  auto k = parse_kernel(std::string("Sure:\n") + kKernel + "Done.", 3);
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_THAT(*k, HasSubstr("y[0] = x[0];"));
}

TEST(ParseKernel, RejectsMalformedReplies) {
  EXPECT_THAT(parse_kernel("no code here", 3).error().message, HasSubstr("no ```cpp code block"));
  EXPECT_THAT(parse_kernel("```cpp\n#include \"kforge_task.h\"\nint x;\n", 3).error().message,
              HasSubstr("not closed"));
  EXPECT_THAT(
      parse_kernel(
          "```cpp\nextern \"C\" void kernel(const float* x, const float* s, float* y) {}\n```", 3)
          .error()
          .message,
      HasSubstr("kforge_task.h"));
  EXPECT_THAT(parse_kernel(kKernel, 4).error().message,
              HasSubstr("takes 3 parameters, but this task's signature has 4"));
  EXPECT_THAT(
      parse_kernel("```cpp\n#include \"kforge_task.h\"\nvoid other() {}\n```", 3).error().message,
      HasSubstr("does not define"));
  EXPECT_THAT(parse_kernel(std::string(kKernel) + "```cpp\n#include \"kforge_task.h\"\nextern "
                                                  "\"C\" void kernel(int a, int b, int c) {}\n```",
                           3)
                  .error()
                  .message,
              HasSubstr("2 code blocks"));
}

TEST(ParseKernel, SeveralBlocksWithOneKernelAreFine) {
  auto k = parse_kernel(std::string("```bash\nmake\n```\n") + kKernel, 3);
  EXPECT_TRUE(k.ok()) << k.error().message;
}

TEST(ParseFix, NeedsTheSummary) {
  EXPECT_THAT(parse_fix(kKernel, 3).error().message, HasSubstr("FIX_SUMMARY"));
  auto f = parse_fix(
      std::string(kKernel) +
          "FIX_SUMMARY:\nerror: wrong values\ncause: scale ignored\nfix: multiply by scale\n",
      3);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->second.cause, "scale ignored");
  EXPECT_EQ(f->second.fix, "multiply by scale");
  EXPECT_THAT(parse_fix(std::string(kKernel) + "FIX_SUMMARY:\nerror: x\n", 3).error().message,
              HasSubstr("cause:"));
}

TEST(ParseDiagnosis, ReadsTheDecision) {
  auto d = parse_diagnosis(
      "BOTTLENECK: memory bandwidth\nDIAGNOSIS: 92% of the roofline\n**NEEDS_IMPROVEMENT:** "
      "no\nSUGGESTION: none\n");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->needs_improvement);
  EXPECT_EQ(d->bottleneck, "memory bandwidth");
  auto yes = parse_diagnosis("DIAGNOSIS: scalar loop\nNEEDS_IMPROVEMENT: yes, vectorize\n");
  ASSERT_TRUE(yes.ok());
  EXPECT_TRUE(yes->needs_improvement);
  EXPECT_THAT(parse_diagnosis("DIAGNOSIS: fine\nNEEDS_IMPROVEMENT: maybe\n").error().message,
              HasSubstr("NEEDS_IMPROVEMENT"));
  EXPECT_THAT(parse_diagnosis("NEEDS_IMPROVEMENT: no\n").error().message, HasSubstr("DIAGNOSIS"));
}

}  // namespace kforge::agents

namespace kforge::agents {

TEST(ParseKernel, TakesACudaBlockAndAsksForTheFenceItWasGiven) {
  const std::string cuda =
      "```cuda\n#include \"kforge_task.h\"\n__global__ void k() {}\n"
      "extern \"C\" void kernel(const float* x, float* y, cudaStream_t stream) { k<<<1, 1, 0, "
      "stream>>>(); }\n```\n";
  auto k = parse_kernel(cuda, 3, "cuda");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_THAT(*k, HasSubstr("cudaStream_t stream"));
  // The stream is a parameter like the buffers: two buffers and no stream is one short.
  EXPECT_FALSE(parse_kernel(cuda, 2, "cuda").ok());
  EXPECT_THAT(parse_kernel("no code here", 3, "cuda").error().message,
              HasSubstr("no ```cuda code block"));
}

}  // namespace kforge::agents

namespace kforge::agents {

TEST(ParseKernel, TakesAPythonFileThatDefinesKernelForThePallasFence) {
  const std::string py =
      "Plan done.\n```bash\npip list\n```\n```python\nimport kforge_task as T\n\n"
      "def kernel(x, scale):\n    return x\n```\n";
  auto k = parse_kernel(py, 3, "python");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_THAT(*k, HasSubstr("def kernel(x, scale):"));
  // A Python block without the kernel function, and a C++ block, are not a Pallas kernel.
  EXPECT_THAT(parse_kernel("```python\ndef other():\n    pass\n```\n", 3, "python").error().message,
              HasSubstr("def kernel("));
  EXPECT_THAT(parse_kernel("```cpp\nextern \"C\" void kernel(float* x) {}\n```\n", 3, "python")
                  .error()
                  .message,
              HasSubstr("no ```python code block"));
  EXPECT_THAT(parse_kernel("```python\ndef kernel(x):\n", 3, "python").error().message,
              HasSubstr("not closed"));
  // The C++ rules are untouched for the cpp fence: a Python block is no C++ kernel.
  EXPECT_FALSE(parse_kernel(py, 3).ok());
}

}  // namespace kforge::agents
