// Python tracebacks from Pallas kernels into diagnostics, on REAL error texts: each fixture under
// tests/pallas/errors/ is a broken variant of a small RMSNorm kernel (<case>.py) and what JAX
// 0.10.2 printed running it (<case>.txt): on the CPU in interpret mode, or lowered for TPU with
// jax.export(platforms=["tpu"]) for the tpu_* cases. tests/pallas/errors/capture.py makes them.
#include "kforge/toolchain/pallas_diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"

namespace kforge::toolchain {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Parsed {
  std::vector<Diagnostic> all;
  const Diagnostic& error() const { return all.front(); }
  std::string notes() const {
    std::string s;
    for (std::size_t i = 1; i < all.size(); ++i)
      s += all[i].file + ":" + std::to_string(all[i].line) + ": " + all[i].message + "\n";
    return s;
  }
};

Parsed parse_fixture(const std::string& name) {
  const std::filesystem::path dir = core::source_dir() / "tests" / "pallas" / "errors";
  auto output = core::read_text(dir / (name + ".txt"));
  auto source = core::read_text(dir / (name + ".py"));
  EXPECT_TRUE(output && source) << name;
  if (!output || !source) return {};
  Parsed p{parse_python_diagnostics(*output, {{"kernel.py", *source}})};
  EXPECT_FALSE(p.all.empty()) << name;
  if (p.all.empty()) p.all.push_back({});
  return p;
}

TEST(PallasDiagnostics, SyntaxErrorHasLineAndColumn) {
  auto p = parse_fixture("syntax_error");
  EXPECT_EQ(p.error().file, "kernel.py");
  EXPECT_EQ(p.error().line, 15);
  EXPECT_EQ(p.error().column, 21);  // just after "def kernel(x, scale)"
  EXPECT_EQ(p.error().severity, "error");
  EXPECT_EQ(p.error().message, "SyntaxError: expected ':'");
  EXPECT_EQ(p.error().source_line, "def kernel(x, scale)");
}

TEST(PallasDiagnostics, NameErrorIsPlacedInTheKernelBody) {
  auto p = parse_fixture("name_error");
  EXPECT_EQ(p.error().file, "kernel.py");
  EXPECT_EQ(p.error().line, 12);  // the body (_rms), deeper than the pallas_call at line 18
  EXPECT_EQ(p.error().message, "NameError: name 'scal_ref' is not defined");
  EXPECT_THAT(p.error().source_line, HasSubstr("scal_ref[...]"));
}

TEST(PallasDiagnostics, BlockRankNamesTheBlockAndArrayShapes) {
  auto p = parse_fixture("block_rank");
  EXPECT_EQ(p.error().line, 18);
  EXPECT_THAT(p.error().source_line, HasSubstr("pl.pallas_call("));
  EXPECT_THAT(p.error().message, HasSubstr("ValueError: Block shape for args[0] (= (8,)) must have "
                                           "the same number of dimensions as the array shape"));
  EXPECT_THAT(p.notes(), HasSubstr("offending BlockSpec for args[0]: block shape (8,), array "
                                   "shape (16, 256)"));
  EXPECT_THAT(p.notes(), HasSubstr("one entry per array dimension"));
}

// out_shape of another rank than the output's BlockSpec (the (B, S, D) input's shape given for
// a (rows, D) output).
TEST(PallasDiagnostics, OutShapeRankNamesTheOutput) {
  auto p = parse_fixture("out_shape_rank");
  EXPECT_EQ(p.error().line, 18);
  EXPECT_THAT(p.notes(), HasSubstr("offending BlockSpec for outputs: block shape (8, 256), array "
                                   "shape (2, 8, 256)"));
}

TEST(PallasDiagnostics, IndexMapArityAgainstTheGrid) {
  for (const char* name : {"index_map_arity", "grid_arity"}) {
    SCOPED_TRACE(name);
    auto p = parse_fixture(name);
    EXPECT_EQ(p.error().line, 18);
    EXPECT_THAT(p.error().message, HasSubstr("TypeError: kernel.<locals>.<lambda>()"));
    EXPECT_THAT(p.notes(), HasSubstr("one index per grid axis"));
  }
}

TEST(PallasDiagnostics, IndexMapRankPointsAtTheIndexMap) {
  auto p = parse_fixture("index_map_rank");
  EXPECT_EQ(p.error().line, 18);
  EXPECT_THAT(p.error().message, HasSubstr("for outputs must return 2 values to match "
                                           "block_shape=(8, 256)"));
  EXPECT_THAT(p.notes(), HasSubstr("offending BlockSpec for outputs: block shape (8, 256)"));
  EXPECT_THAT(p.notes(), HasSubstr("kernel.py:24: the index map <lambda>"));
  ASSERT_GE(p.all.size(), 3u);
  bool index_map_line = false;
  for (const auto& d : p.all)
    index_map_line = index_map_line ||
                     (d.line == 24 && d.source_line.find("lambda i: (i,)") != std::string::npos);
  EXPECT_TRUE(index_map_line) << p.notes();
}

TEST(PallasDiagnostics, ShapeAndDtypeErrorsInTheBody) {
  auto b = parse_fixture("broadcast");
  EXPECT_EQ(b.error().line, 12);
  EXPECT_THAT(b.error().message,
              HasSubstr("TypeError: mul got incompatible shapes for broadcasting: (8, 256), "
                        "(1, 128)."));
  EXPECT_THAT(b.notes(), HasSubstr("a ref holds one block"));
  auto d = parse_fixture("out_dtype");
  EXPECT_EQ(d.error().line, 12);
  EXPECT_THAT(d.error().message, HasSubstr("Invalid dtype for `swap`. Ref dtype: float32. Value "
                                           "dtype: float16."));
  EXPECT_THAT(d.notes(), HasSubstr(".astype(ref.dtype)"));
}

// The lowering error comes twice (the stack before transformation, then the propagated one);
// the message is the inner ValueError, not JaxStackTraceBeforeTransformation.
TEST(PallasDiagnostics, MosaicBlockAlignment) {
  auto p = parse_fixture("tpu_block_alignment");
  EXPECT_EQ(p.error().file, "kernel.py");
  EXPECT_EQ(p.error().line, 18);  // found in the stack before transformation
  EXPECT_THAT(p.error().message,
              HasSubstr("ValueError: The Pallas TPU lowering currently requires that the last two "
                        "dimensions of your block shape are divisible by 8 and 128"));
  EXPECT_THAT(p.error().message, Not(HasSubstr("JaxStackTraceBeforeTransformation")));
  EXPECT_THAT(p.notes(), HasSubstr("offending BlockSpec for args[0]: block shape (4, 256), array "
                                   "shape (16, 256)"));
  EXPECT_THAT(p.notes(), HasSubstr("kernel.py:9: the kernel function _rms of this pallas_call"));
  EXPECT_THAT(p.notes(), HasSubstr("multiples of (8, 128)"));
}

// No kernel frame anywhere in the text: the error still says what failed, without a place.
TEST(PallasDiagnostics, MosaicUnimplementedPrimitive) {
  auto p = parse_fixture("tpu_unimplemented");
  EXPECT_EQ(p.error().message,
            "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: cumsum. "
            "Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.");
  EXPECT_EQ(p.error().file, "");
  EXPECT_THAT(p.notes(), HasSubstr("cannot lower this operation"));
  EXPECT_THAT(format_errors(p.all), HasSubstr("error: NotImplementedError: Unimplemented"));
  EXPECT_THAT(format_errors(p.all), Not(HasSubstr(":0:")));
}

TEST(PallasDiagnostics, OutOfBoundsSliceOfARef) {
  auto p = parse_fixture("tpu_interpret_oob");
  EXPECT_EQ(p.error().line, 10);
  EXPECT_EQ(p.error().source_line, "    x = x_ref[pl.ds(4, 8), :]  # reads 4 rows past the block");
  EXPECT_EQ(p.error().message, "ValueError: Out of bound slice: start=4, size=8, stride=1, dim=8.");
  EXPECT_THAT(p.notes(), HasSubstr("inside the ref's block"));
}

TEST(PallasDiagnostics, FormatsLikeCompilerErrors) {
  auto p = parse_fixture("name_error");
  EXPECT_THAT(format_errors(p.all),
              HasSubstr("kernel.py:12: error: NameError: name 'scal_ref' is not defined\n"
                        "    12 |     y_ref[...] = x * jax.lax.rsqrt(ms + task.eps) * "
                        "scal_ref[...]\n"));
}

TEST(PallasDiagnostics, WithoutSourcesTheUsersFramesCount) {
  auto text =
      core::read_text(core::source_dir() / "tests" / "pallas" / "errors" / "name_error.txt");
  ASSERT_TRUE(text);
  auto d = parse_python_diagnostics(*text, {});
  ASSERT_FALSE(d.empty());
  EXPECT_THAT(d[0].file, ::testing::EndsWith("/name_error/kernel.py"));  // the full path
  EXPECT_EQ(d[0].line, 12);
  EXPECT_THAT(d[0].source_line, HasSubstr("scal_ref"));  // echoed by the traceback
}

TEST(PallasDiagnostics, NoTracebackNoDiagnostics) {
  EXPECT_TRUE(parse_python_diagnostics("", {}).empty());
  EXPECT_TRUE(parse_python_diagnostics("correct on 3 sets\nTraceback (most recent call last):\n",
                                       {{"kernel.py", ""}})
                  .empty());
}

}  // namespace
}  // namespace kforge::toolchain
