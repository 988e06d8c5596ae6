// The real nvcc behind the Compiler interface (skipped where the CUDA toolkit is not installed):
// artifacts and the content-hash cache, ptxas's figures kept with the artifact (and served from
// the cache), nvcc's diagnostics with file, line and source, the compile sandbox around nvcc,
// and the cuda link policy: cuBLAS refused for a candidate, allowed for an expert.
#include "kforge/toolchain/cuda_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "kforge/core/subprocess.h"
#include "kforge/toolchain/elf_symbols.h"
#include "kforge/toolchain/link_check.h"
#include "kforge/toolchain/toolchain_test_util.h"

namespace kforge::toolchain {
namespace {

const char* kHeader =
    "#pragma once\n#include <cstdint>\n#include <cuda_runtime.h>\n"
    "namespace task { inline constexpr std::int64_t N = 256; }\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) void kernel(const float* x, float* y, "
    "cudaStream_t stream);\n";

const char* kScale =
    "#include \"kforge_task.h\"\n"
    "__global__ void twice(const float* x, float* y) {\n"
    "  __shared__ float s[256];\n"
    "  s[threadIdx.x] = x[threadIdx.x];\n"
    "  __syncthreads();\n"
    "  y[threadIdx.x] = 2.0f * s[255 - threadIdx.x];\n"
    "}\n"
    "extern \"C\" void kernel(const float* x, float* y, cudaStream_t stream) {\n"
    "  twice<<<1, task::N, 0, stream>>>(x, y);\n"
    "}\n";

class CudaCompilerTest : public ::testing::Test {
 protected:
  // One cache for the suite: nvcc takes seconds, and a second compile of a source is a hit.
  static void SetUpTestSuite() {
    cache_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                       ("kforge-cuda-test-" + std::to_string(::getpid())));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*cache_);
    delete cache_;
  }
  void SetUp() override {
    if (!CudaCompiler({}).available()) GTEST_SKIP() << "nvcc is not installed (/usr/local/cuda)";
  }
  static CudaCompiler compiler() { return CudaCompiler({.arch = "sm_90", .cache_dir = *cache_}); }
  static CompileResult compile(const std::string& source, Role role = Role::candidate) {
    return compiler().compile({role, source, "kernel.cu", kHeader, {}});
  }
  static inline std::filesystem::path* cache_ = nullptr;
};

TEST_F(CudaCompilerTest, CompilesCachesAndKeepsPtxasFigures) {
  auto first = compile(kScale);
  ASSERT_TRUE(first.ok) << first.log;
  ASSERT_EQ(first.resources.size(), 1u) << first.log;
  EXPECT_EQ(first.resources[0].arch, "sm_90");
  EXPECT_GT(first.resources[0].registers, 0);
  EXPECT_EQ(first.resources[0].shared_bytes, 1024);
  auto second = compile(kScale);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.artifact, first.artifact);
  ASSERT_EQ(second.resources.size(), 1u);  // the figures come back with the cached artifact
  EXPECT_EQ(second.resources[0].shared_bytes, 1024);
  // The artifact imports the CUDA runtime and nothing a candidate may not.
  auto link = check_link(first.artifact, compiler().link_policy(Role::candidate));
  EXPECT_TRUE(link.ok()) << link.reason;
}

TEST_F(CudaCompilerTest, NvccDiagnosticsCarryFileLineAndSource) {
  auto r = compile(std::string(kScale) + "int broken = ;\n");
  ASSERT_FALSE(r.ok);
  ASSERT_GE(count_errors(r.diagnostics), 1) << r.log;
  const Diagnostic& d = r.diagnostics.front();
  EXPECT_EQ(d.file, "kernel.cu");
  EXPECT_EQ(d.line, 11);
  EXPECT_EQ(d.source_line, "int broken = ;");
  EXPECT_NE(format_errors(r.diagnostics).find("kernel.cu:11: error"), std::string::npos);
}

// nvcc runs in the compile sandbox: a kernel cannot include a file of the user's.
TEST_F(CudaCompilerTest, NvccCannotIncludeFilesOutsideTheSandbox) {
  auto secret = std::filesystem::temp_directory_path() /
                ("kforge-cuda-secret-" + std::to_string(::getpid()) + ".h");
  { std::ofstream(secret) << "int leaked = 42;\n"; }
  auto r = compile(std::string("#include \"") + secret.string() + "\"\n" + kScale);
  std::filesystem::remove(secret);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.log.find("leaked"), std::string::npos);
}

// The same object, calling cuBLAS without linking it: refused for a candidate (no allowed library
// provides cublasSgemm), accepted under the expert's policy (cuBLAS is allowed).
TEST_F(CudaCompilerTest, CublasIsRefusedForCandidatesAndAllowedForExperts) {
  const std::string src = std::string(kScale) +
                          "#include <cublas_v2.h>\n"
                          "extern \"C\" void use_blas() { cublasHandle_t h; cublasCreate(&h); }\n";
  auto r = compile(src);
  ASSERT_TRUE(r.ok) << r.log;
  auto candidate = check_link(r.artifact, compiler().link_policy(Role::candidate));
  EXPECT_FALSE(candidate.ok());
  EXPECT_NE(candidate.reason.find("cublasCreate"), std::string::npos) << candidate.reason;
  auto expert = compile(src, Role::expert);
  ASSERT_TRUE(expert.ok) << expert.log;
  EXPECT_TRUE(check_link(expert.artifact, compiler().link_policy(Role::expert)).ok());
  EXPECT_FALSE(check_link(expert.artifact, compiler().link_policy(Role::candidate)).ok());
}

// A CUDA baseline names no symbol of libtorch_cuda (its CUDA kernels register themselves from
// the library's static initializers), so where GCC links --as-needed by default (Ubuntu: the
// H200 machine, where the baseline aborted with "Cannot initialize CUDA without ATen_cuda
// library") the library fell out of the artifact. Built here against stand-in libraries of
// PyTorch's names, with --as-needed put first as such a distribution does: libtorch_cuda.so must
// still be NEEDED, while an unreferenced libtorch_cpu.so is dropped (the linker did drop what it
// could, so the test reads the distribution's behaviour, not Debian's default).
TEST_F(CudaCompilerTest, TheBaselineNeedsLibtorchCudaWhereTheLinkerDropsUnusedLibraries) {
  const auto torch = *cache_ / "stand-in-torch";
  std::filesystem::create_directories(torch / "lib");
  { std::ofstream(torch / "empty.cpp") << "extern \"C\" int kforge_stand_in() { return 0; }\n"; }
  for (const char* lib : {"torch_cuda", "c10_cuda", "torch_cpu", "c10"}) {
    auto so = torch / "lib" / (std::string("lib") + lib + ".so");
    auto r = core::run_process(
        {"g++", "-shared", "-fPIC", (torch / "empty.cpp").string(), "-o", so.string()},
        {.timeout = std::chrono::seconds(60)});
    ASSERT_TRUE(r.success()) << r.err;
  }
  CudaCompiler c({.arch = "sm_90",
                  .cache_dir = *cache_,
                  .torch = core::TorchInstall{.root = torch,
                                              .wheel = true,
                                              .include_dirs = {torch / "include"},
                                              .lib_dir = torch / "lib",
                                              .runtime_dirs = {torch}}});
  const std::string source =
      "#include \"kforge_task.h\"\n"
      "extern \"C\" void kernel(const float*, float*, cudaStream_t) {}\n";
  auto r = c.compile({Role::baseline, source, "baseline.cu", kHeader, {"-Wl,--as-needed"}});
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.command.find("-Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed"), std::string::npos)
      << r.command;
  auto elf = read_elf_dynamic(r.artifact);
  ASSERT_TRUE(elf.ok()) << elf.error().message;
  EXPECT_THAT(elf->needed, ::testing::Contains("libtorch_cuda.so"));
  EXPECT_THAT(elf->needed, ::testing::Not(::testing::Contains("libtorch_cpu.so")));
}

TEST(CudaCompilerFlags, CandidatesGetTheArchPtxasReportAndNoVendorLibraries) {
  CudaCompiler c({.arch = "sm_80"});
  auto f = c.flags_for(Role::candidate);
  EXPECT_NE(std::find(f.begin(), f.end(), "-arch=sm_80"), f.end());
  EXPECT_NE(std::find(f.begin(), f.end(), "-v"), f.end());
  auto p = c.link_policy(Role::candidate);
  EXPECT_EQ(p.extra_libs, std::vector<std::string>{"cudart"});
  EXPECT_EQ(c.link_policy(Role::expert).extra_libs.size(), 4u);
}

TEST(Diagnostics, ParsesNvccFrontEndOutput) {
  auto d = parse_diagnostics(
      "k.cu(7): warning #177-D: variable \"x\" was declared but never referenced\n"
      "k.cu(9): error: identifier \"q\" is undefined\n",
      {{"k.cu", "1\n2\n3\n4\n5\n6\nint x;\n8\nq = 1;\n"}});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].severity, "warning");
  EXPECT_EQ(d[1].severity, "error");
  EXPECT_EQ(d[1].line, 9);
  EXPECT_EQ(d[1].source_line, "q = 1;");
}

}  // namespace
}  // namespace kforge::toolchain
