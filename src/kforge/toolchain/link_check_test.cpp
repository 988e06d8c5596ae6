// The link check on real shared objects built with g++.
#include "kforge/toolchain/link_check.h"

#include <fstream>

#include "kforge/core/subprocess.h"
#include "kforge/toolchain/toolchain_test_util.h"

namespace kforge::toolchain {
namespace {

class LinkCheckTest : public ScratchTest {
 protected:
  std::filesystem::path build(const std::string& source, std::vector<std::string> extra = {}) {
    auto src = dir_ / "k.cpp";
    auto so = dir_ / ("k" + std::to_string(n_++) + ".so");
    std::ofstream(src) << source;
    std::vector<std::string> argv = {"g++",      "-O2",        "-fPIC", "-shared",
                                     "-fopenmp", src.string(), "-o",    so.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = core::run_process(argv);
    EXPECT_TRUE(r.success()) << r.err;
    return so;
  }
  int n_ = 0;
};

}  // namespace

TEST_F(LinkCheckTest, PlainKernelUsingTheStandardLibraryPasses) {
  auto so = build(R"(#include <vector>
#include <algorithm>
#include <cmath>
#include <omp.h>
extern "C" void kernel(const float* x, float* y) {
  std::vector<float> v(x, x + 16);
  std::sort(v.begin(), v.end());
  #pragma omp parallel for
  for (int i = 0; i < 16; ++i) y[i] = std::exp(v[i]) + omp_get_thread_num();
})");
  auto v = check_link(so, {});
  EXPECT_TRUE(v.ok()) << v.reason;
}

TEST_F(LinkCheckTest, BlasCallIsRefused) {
  auto so = build(
      "extern \"C\" void cblas_sscal(int, float, float*, int);\nextern \"C\" void kernel(float* y) "
      "{ cblas_sscal(4, 2.f, y, 1); }\n");
  auto v = check_link(so, {});
  EXPECT_EQ(v.problem, LinkProblem::symbol_refused);
  EXPECT_NE(v.reason.find("cblas_sscal"), std::string::npos);
}

TEST_F(LinkCheckTest, LinkedLibraryIsRefusedUnlessAllowed) {
  auto so = build(
      "extern \"C\" void cblas_sscal(int, float, float*, int);\nextern \"C\" void kernel(float* y) "
      "{ cblas_sscal(4, 2.f, y, 1); }\n",
      {"-lopenblas"});
  auto v = check_link(so, {});
  EXPECT_EQ(v.problem, LinkProblem::library_refused);
  EXPECT_NE(v.reason.find("libopenblas"), std::string::npos);
  EXPECT_TRUE(check_link(so, {{"openblas"}}).ok()) << check_link(so, {{"openblas"}}).reason;
}

TEST_F(LinkCheckTest, ShadowingARuntimeSymbolIsRefused) {
  auto so = build(
      "#include <time.h>\nextern \"C\" int clock_gettime(clockid_t, timespec* t) { t->tv_sec = 0; "
      "return 0; }\n"
      "extern \"C\" void kernel(float* y) { y[0] = 1; }\n");
  auto v = check_link(so, {});
  EXPECT_EQ(v.problem, LinkProblem::shadows_system);
  EXPECT_NE(v.reason.find("clock_gettime"), std::string::npos);
}

TEST_F(LinkCheckTest, ReplacingOperatorNewIsRefused) {
  auto so = build(
      "#include <new>\n#include <cstdlib>\nvoid* operator new(std::size_t n) { return "
      "std::malloc(n); }\n"
      "extern \"C\" void kernel(float* y) { y[0] = 1; }\n");
  EXPECT_EQ(check_link(so, {}).problem, LinkProblem::shadows_system);
}

TEST_F(LinkCheckTest, MissingEntryPoint) {
  auto so = build("extern \"C\" void kernal(float* y) { y[0] = 1; }\n");
  auto v = check_link(so, {});
  EXPECT_EQ(v.problem, LinkProblem::missing_entry);
  EXPECT_NE(v.reason.find("`kernel`"), std::string::npos);
}

}  // namespace kforge::toolchain
