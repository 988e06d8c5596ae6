// Hot instructions: objdump's listing (GNU and LLVM) parsed, samples at offsets of a real kernel
// object compiled here charged to its instructions with shares that add up, the text bounded and
// naming the hottest, and a disassembler that is missing or fails as a note.
#include "kforge/eval/hot_instructions.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/core/subprocess.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Excerpts of `objdump -d --no-show-raw-insn -C -M intel` as each tool prints it.
constexpr const char* kGnuListing = R"(
kernel.so:     file format elf64-x86-64


Disassembly of section .text:

0000000000001100 <kernel>:
    1100:	vmovdqa ymm7,YMMWORD PTR [rip+0xef8]        # 2000 <_fini+0xe00>
    1108:	mov    rdx,rdi
    1111:	jne    1100 <kernel>

0000000000001120 <foo(std::vector<int, std::allocator<int> > const&)>:
    1120:	vfmadd231ps ymm0,ymm1,YMMWORD PTR [rax+rdx*4]
    1126:	ret
	...
)";

constexpr const char* kLlvmListing = R"(
kernel.so:	file format elf64-x86-64

Disassembly of section .text:

0000000000001100 <kernel>:
    1100:      	vmovdqa	ymm7, ymmword ptr [rip + 3832] # 0x2000 <k.cpp+0x2000>
    1108:      	mov	rdx, rdi
)";

}  // namespace

TEST(HotInstructions, ParsesGnuListingWithFunctionsAndWithoutComments) {
  auto code = parse_disassembly(kGnuListing);
  ASSERT_EQ(code.size(), 5u);
  EXPECT_EQ(code[0].offset, 0x1100u);
  EXPECT_EQ(code[0].function, "kernel");
  EXPECT_EQ(code[0].text, "vmovdqa ymm7,YMMWORD [rip+0xef8]");
  EXPECT_EQ(code[1].text, "mov rdx,rdi");
  EXPECT_EQ(code[2].text, "jne 1100");
  EXPECT_EQ(code[3].function, "foo(std::vector<int, std::allocator<int> > const&)");
  EXPECT_EQ(code[3].text, "vfmadd231ps ymm0,ymm1,YMMWORD [rax+rdx*4]");
}

TEST(HotInstructions, ParsesLlvmListing) {
  auto code = parse_disassembly(kLlvmListing);
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0].offset, 0x1100u);
  EXPECT_EQ(code[0].text, "vmovdqa ymm7, ymmword [rip + 3832]");
  EXPECT_EQ(code[1].text, "mov rdx, rdi");
}

TEST(HotInstructions, SamplesInsideAnInstructionAreChargedToIt) {
  auto code = parse_disassembly(kGnuListing);
  // 0x1122 lies inside the vfmadd at 0x1120 (up to the ret at 0x1126); 0x9000 is past the code.
  auto h = attribute_samples(code, {{0x1120, 30}, {0x1122, 10}, {0x1108, 5}, {0x9000, 2}}, 50);
  ASSERT_EQ(h.top.size(), 2u);
  EXPECT_EQ(h.top[0].offset, 0x1120u);
  EXPECT_EQ(h.top[0].samples, 40);
  EXPECT_DOUBLE_EQ(h.top[0].share, 0.8);
  EXPECT_EQ(h.kernel_samples, 47);
  EXPECT_EQ(h.attributed, 45);
  EXPECT_THAT(h.note, HasSubstr("2 of the kernel's 47 samples fell outside the disassembled code"));
  // The neighbourhood stays within the hottest one's function.
  ASSERT_EQ(h.around.size(), 2u);
  EXPECT_EQ(h.around[1].text, "ret");
  EXPECT_EQ(h.around[1].samples, 0);
}

TEST(HotInstructions, TextIsBoundedAndKeepsTheTop) {
  // 40 hot instructions with long operands over several long-named functions.
  std::vector<Instruction> code;
  std::vector<std::pair<std::uint64_t, long>> offsets;
  for (int i = 0; i < 40; ++i) {
    code.push_back(
        {0x2000u + 8u * i,
         fmt::format("void tile_kernel<{}, 64, 256>(float const*, float*) [clone]", i % 3),
         "vfmadd231ps zmm0,zmm1,DWORD PTR [rax+rdx*4+0x40]{1to16} and a long tail"});
    offsets.emplace_back(0x2000u + 8u * i, 100 + i);
  }
  auto h = attribute_samples(code, offsets, 10000);
  h.why = "line 12 holds 78% of the kernel's samples";
  h.tool = "objdump";
  EXPECT_EQ(h.top.size(), HotInstructions::kTop);
  EXPECT_EQ(h.top[0].samples, 139);
  std::string s = h.text();
  EXPECT_LE(s.size(), 1536u) << s;
  // Functions by name alone (no return type, no parameters); totals before the rows.
  EXPECT_THAT(s, HasSubstr("  [tile_kernel<0, 64, 256>]\n"));
  EXPECT_THAT(s, HasSubstr("  by operation: vfmadd231ps 48%\n"));
  EXPECT_THAT(s,
              HasSubstr("  by function: tile_kernel<0, 64, 256> 17%, tile_kernel<2, 64, 256> 16%"));
  EXPECT_THAT(s, HasSubstr("line 12 holds 78%"));
  EXPECT_THAT(
      s, HasSubstr("    139   1.4%  0x2138  vfmadd231ps zmm0,zmm1,DWORD PTR [rax+rdx*4+0x..."));
}

TEST(HotInstructions, MissingDisassemblerIsANote) {
  auto h = hot_instructions_from_samples(nlohmann::json::array({{0x1100u, 5}}), 5,
                                         "/nonexistent.so", {.tools = {"kforge-no-such-objdump"}});
  EXPECT_TRUE(h.top.empty());
  EXPECT_EQ(h.kernel_samples, 5);
  EXPECT_THAT(h.note, HasSubstr("no disassembler on PATH (tried kforge-no-such-objdump)"));
  EXPECT_THAT(h.text(), HasSubstr("(hot instructions not shown: no disassembler on PATH"));
}

TEST(HotInstructions, FailingDisassemblerIsANote) {
  // objdump on a file that is not an object fails with its own message.
  auto h =
      hot_instructions_from_samples(nlohmann::json::array({{0x1100u, 5}}), 5, "/nonexistent.so");
  EXPECT_TRUE(h.top.empty());
  EXPECT_THAT(h.note, HasSubstr("hot instructions not shown: objdump exit status 1"));
}

// A row names its function in a few bytes; the totals by function name it a little longer.
TEST(HotInstructions, FunctionsAreNamedShortly) {
  const std::string micro =
      "void kforge::gemm::avx2::micro_kernel<224l, false, false, kforge::gemm::avx2::Identity>"
      "(long, float const*, kforge::gemm::avx2::Identity const&) [clone .constprop.0]";
  std::vector<Instruction> code = {
      {0x1000, micro, "vfmadd231ps ymm6,ymm2,ymm0"},
      {0x1010, "void kforge::gemm::avx2::pack_b<224l>(float const*, long, long, float*)",
       "vmovups ymm2,YMMWORD [r14-0x380]"},
      {0x1020, "kernel._omp_fn.0", "vmovups ymm1,YMMWORD [r14-0x20]"}};
  auto h = attribute_samples(code, {{0x1000, 6}, {0x1010, 3}, {0x1020, 1}}, 10);
  std::string s = h.text();
  EXPECT_THAT(s, HasSubstr("  by function: micro_kernel<224l, false, false, kfo...> 60%, "
                           "kforge::gemm::avx2::pack_b<224l> 30%, kernel._omp_fn.0 10%\n"));
  EXPECT_THAT(s, HasSubstr("vfmadd231ps ymm6,ymm2,ymm0  [micro_kernel<224l, false, fa...>]\n"));
  EXPECT_THAT(s, HasSubstr("  [kernel._omp_fn.0]\n"));
  EXPECT_THAT(s, HasSubstr("hot instructions (samples, share of all 10; "));
  EXPECT_THAT(s, HasSubstr("  by operation: vfmadd231ps 60%, vmovups 40%\n"));
}

TEST(HotInstructions, JsonRoundTrip) {
  auto h = attribute_samples(parse_disassembly(kGnuListing), {{0x1120, 3}, {0x1100, 1}}, 8);
  h.why = "line 3 holds 75% of the kernel's samples";
  h.tool = "objdump";
  auto back = hot_instructions_from_json(to_json(h));
  EXPECT_EQ(back.text(), h.text());
  EXPECT_EQ(to_json(back), to_json(h));
}

// A real kernel object, compiled as candidates are (-O3 -g -march=native), and samples at offsets
// of its own instructions: each is charged to the instruction objdump prints there.
TEST(HotInstructions, RealKernelObjectSamplesAreChargedToItsInstructions) {
  toolchain::CppCompiler compiler(test_compiler_options());
  const char* source = R"(#include <cstdint>
extern "C" void kernel(const float* x, float* y) {
  for (std::int64_t r = 0; r < 64; ++r)
    for (std::int64_t i = 0; i < 4096; ++i) y[i] = y[i] * 0.5f + x[i] * x[(i * 7) & 4095];
}
)";
  auto built = compiler.compile({toolchain::Role::candidate, source, "hot.cpp", "", {}});
  ASSERT_TRUE(built.ok) << built.log;
  auto listing = core::run_process(
      {"objdump", "-d", "--no-show-raw-insn", "-C", "-M", "intel", built.artifact.string()});
  ASSERT_TRUE(listing.success()) << listing.describe();
  std::vector<Instruction> kernel;
  for (const auto& i : parse_disassembly(listing.out))
    if (i.function == "kernel") kernel.push_back(i);
  // Three instructions that are not padding, of two bytes or more (so c + 1 lies inside c), with
  // three neighbours each side of the first.
  std::vector<std::size_t> picked;
  for (std::size_t k = 3; k + 4 < kernel.size() && picked.size() < 3; ++k)
    if (kernel[k].text.find("nop") == std::string::npos &&
        kernel[k + 1].offset - kernel[k].offset >= 2)
      picked.push_back(k);
  ASSERT_EQ(picked.size(), 3u) << listing.out;
  const Instruction &a = kernel[picked[0]], &b = kernel[picked[1]], &c = kernel[picked[2]];

  nlohmann::json offsets = nlohmann::json::array(
      {{a.offset, 50}, {b.offset, 30}, {c.offset, 12}, {c.offset + 1, 8}, {0x7fffffffu, 4}});
  auto h = hot_instructions_from_samples(offsets, 120, built.artifact.string());
  EXPECT_EQ(h.tool, "objdump");
  ASSERT_EQ(h.top.size(), 3u) << h.text();
  EXPECT_EQ(h.top[0].offset, a.offset);
  EXPECT_EQ(h.top[0].text, a.text);
  EXPECT_EQ(h.top[0].function, "kernel");
  EXPECT_EQ(h.top[1].offset, b.offset);
  EXPECT_EQ(h.top[2].offset, c.offset);
  EXPECT_EQ(h.top[2].samples, 20);
  double shares = 0;
  for (const auto& t : h.top) shares += t.share;
  EXPECT_NEAR(shares, 100.0 / 120, 1e-12);  // what fell on instructions, of all samples
  EXPECT_EQ(h.kernel_samples, 104);
  long by_operation = 0;
  for (const auto& [op, samples] : h.by_mnemonic) by_operation += samples;
  EXPECT_EQ(by_operation, 100);
  EXPECT_EQ(h.by_function, (std::map<std::string, long>{{"kernel", 100}}));
  EXPECT_EQ(h.attributed, 100);
  // The hottest with its neighbours: three before, three after, itself marked.
  ASSERT_EQ(h.around.size(), 7u);
  EXPECT_EQ(h.around[3].offset, a.offset);
  EXPECT_EQ(h.around[0].offset, kernel[picked[0] - 3].offset);
  std::string s = h.text();
  EXPECT_THAT(s,
              HasSubstr(fmt::format("     50  41.7% {:#7x}  {}", a.offset,
                                    a.text.substr(0, std::min<std::size_t>(45, a.text.size())))));
  EXPECT_THAT(s, HasSubstr(fmt::format("     50 > {:#7x}", a.offset)));
  EXPECT_THAT(s, HasSubstr("around the hottest, in kernel:"));
  EXPECT_THAT(s, HasSubstr("4 of the kernel's 104 samples fell outside the disassembled code"));
  EXPECT_THAT(s, Not(HasSubstr("#")));  // objdump's comments are dropped
}

}  // namespace kforge::eval
