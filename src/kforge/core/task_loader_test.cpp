// task.toml validation: a good task loads; each kind of mistake is refused with an error that
// names the file, the line and the field.
#include "kforge/core/task_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "kforge/core/task_header.h"
#include "kforge/core/task_resolve.h"

namespace kforge::core {
namespace {

const char* kGood = R"(id = "t_axpy"
title = "y = a*x + b"
default_size = "ci"

[sizes.ci]
N = 16
[sizes.cpu]
N = 4096

[params]
alpha = 2.5
steps = 3
two = 2.0

[[inputs]]
name = "x"
dtype = "f32"
shape = ["N"]
init = { dist = "normal", mean = 0.0, std = 1.0 }

[[inputs]]
name = "idx"
dtype = "i32"
shape = ["N/2"]
init = { dist = "randint", low = 0, high = 16 }

[[outputs]]
name = "y"
dtype = "f32"
shape = ["N"]

[check]
rtol = 1e-5
atol = 1e-6

[cost]
flops = "2*N"
bytes = "8*N"
)";

class TaskLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge-task-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    dir_ = root_ / "t_axpy";  // a task's folder is named after its id
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "reference.cpp") << "// reference\n";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  Result<TaskSpec> load(const std::string& toml) {
    std::ofstream(dir_ / "task.toml") << toml;
    return load_task(dir_);
  }
  // Loads `toml` and expects an error mentioning every fragment.
  void expect_error(const std::string& toml, std::initializer_list<const char*> fragments) {
    auto r = load(toml);
    ASSERT_FALSE(r.ok()) << "expected an error";
    for (const char* f : fragments)
      EXPECT_NE(r.error().message.find(f), std::string::npos)
          << "missing '" << f << "' in: " << r.error().message;
  }
  static std::string replace(std::string s, const std::string& from, const std::string& to) {
    auto p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return s.replace(p, from.size(), to);
  }

  std::filesystem::path root_, dir_;
};

}  // namespace

TEST_F(TaskLoaderTest, LoadsAndResolvesAGoodTask) {
  auto spec = load(kGood);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->id, "t_axpy");
  ASSERT_EQ(spec->inputs.size(), 2u);
  EXPECT_TRUE(spec->inputs[0].mutate);   // float inputs are perturbed in timing by default
  EXPECT_FALSE(spec->inputs[1].mutate);  // integer inputs never are
  auto ci = resolve_task(*spec, "");
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(ci->size, "ci");
  EXPECT_EQ(ci->inputs[1].shape, (std::vector<std::int64_t>{8}));
  EXPECT_EQ(ci->inputs[1].bytes, 32u);
  EXPECT_DOUBLE_EQ(ci->flops, 32);
  auto cpu = resolve_task(*spec, "cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_DOUBLE_EQ(cpu->bytes, 8 * 4096);
  EXPECT_FALSE(resolve_task(*spec, "huge").ok());
}

TEST_F(TaskLoaderTest, HeaderDeclaresConstantsAndTheSignature) {
  auto spec = load(kGood);
  ASSERT_TRUE(spec.ok());
  auto task = resolve_task(*spec, "ci");
  std::string h = task_header(*task);
  EXPECT_NE(h.find("inline constexpr std::int64_t N = 16;"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr float alpha = 2.5f;"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr std::int64_t steps = 3;"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr float two = 2.0f;"),
            std::string::npos);  // "2f" would not compile
  EXPECT_NE(h.find("inline constexpr double alpha = 2.5;"), std::string::npos);
  EXPECT_EQ(kernel_signature(*task),
            "extern \"C\" void kernel(const float* x, const int32_t* idx, float* y)");
  EXPECT_NE(h.find("void kernel(const float* x, const int32_t* idx, float* y);"),
            std::string::npos);
}

TEST_F(TaskLoaderTest, UnknownDtypeNamesFileLineAndField) {
  expect_error(replace(kGood, "dtype = \"i32\"", "dtype = \"f16\""),
               {"task.toml:23:", "inputs[1] ('idx').dtype", "unknown dtype 'f16'"});
}

TEST_F(TaskLoaderTest, ShapeSymbolMissingFromASize) {
  expect_error(replace(kGood, "shape = [\"N/2\"]", "shape = [\"M\"]"),
               {"sizes.ci", "inputs[1] ('idx').shape[0]", "unknown symbol 'M'"});
}

TEST_F(TaskLoaderTest, NonIntegerShape) {
  expect_error(replace(kGood, "shape = [\"N/2\"]", "shape = [\"N/3\"]"),
               {"sizes.ci", "not a positive integer"});
}

TEST_F(TaskLoaderTest, MissingReference) {
  std::filesystem::remove(dir_ / "reference.cpp");
  expect_error(kGood, {"reference.cpp is missing"});
}

TEST_F(TaskLoaderTest, BadInit) {
  expect_error(replace(kGood, "std = 1.0", "std = -1.0"),
               {"inputs[0] ('x').init", "std", "must be positive"});
  expect_error(replace(kGood, "dist = \"normal\"", "dist = \"gaussian\""),
               {"unknown distribution 'gaussian'"});
  expect_error(replace(kGood, "mean = 0.0", "mu = 0.0"),
               {"inputs[0] ('x').init.mu", "not a parameter of the normal distribution"});
  expect_error(replace(kGood, "init = { dist = \"randint\", low = 0, high = 16 }",
                       "init = { dist = \"normal\" }"),
               {"float distribution but the tensor is i32"});
  expect_error(replace(kGood, "low = 0, high = 16", "low = 4, high = 2"),
               {"high", "greater than low"});
}

TEST_F(TaskLoaderTest, DuplicateNames) {
  expect_error(replace(kGood, "name = \"idx\"", "name = \"x\""), {"duplicate name 'x'"});
  expect_error(replace(kGood, "name = \"y\"", "name = \"alpha\""), {"duplicate name 'alpha'"});
}

TEST_F(TaskLoaderTest, UnknownKeysAreTyposNotDefaults) {
  expect_error(replace(kGood, "rtol = 1e-5", "rtoll = 1e-5"), {"check.rtoll", "unknown key"});
  expect_error(replace(kGood, "title = ", "titel = "), {"titel", "unknown key"});
}

TEST_F(TaskLoaderTest, MissingPiecesAreNamed) {
  expect_error(replace(kGood, "[check]\nrtol = 1e-5\natol = 1e-6\n", ""), {"check", "tolerance"});
  expect_error(replace(kGood, "default_size = \"ci\"", "default_size = \"gpu\""),
               {"default_size", "'gpu'"});
  expect_error(replace(kGood, "id = \"t_axpy\"\n", ""), {"id", "missing"});
  expect_error(replace(kGood, "N = 4096", "N = 0"), {"sizes.cpu.N", "positive integer"});
}

TEST_F(TaskLoaderTest, ToleranceCanBeOverriddenPerSize) {
  auto spec = load(replace(kGood, "atol = 1e-6\n", "atol = 1e-6\n[check.cpu]\nrtol = 1e-3\n"));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto ci = resolve_task(*spec, "ci");
  auto cpu = resolve_task(*spec, "cpu");
  EXPECT_DOUBLE_EQ(ci->rtol, 1e-5);
  EXPECT_DOUBLE_EQ(cpu->rtol, 1e-3);
  EXPECT_DOUBLE_EQ(cpu->atol, 1e-6);  // not overridden: the task-wide value
  expect_error(replace(kGood, "atol = 1e-6\n", "atol = 1e-6\n[check.gpu]\nrtol = 1e-3\n"),
               {"check.gpu", "'gpu' is not one of"});
  expect_error(replace(kGood, "atol = 1e-6\n", "atol = 1e-6\n[check.cpu]\nrtl = 1e-3\n"),
               {"check.cpu.rtl", "unknown key"});
}

TEST_F(TaskLoaderTest, GuardProbeShrinksSymbolsOfASize) {
  auto spec = load(kGood + std::string("[guard_probe.cpu]\nN = 64\n"));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(with_guard_probe(*spec, "ci"), nullptr);
  auto probe = with_guard_probe(*spec, "cpu");
  ASSERT_NE(probe, nullptr);
  auto shrunk = resolve_task(*probe, guard_probe_size_name("cpu"));
  ASSERT_TRUE(shrunk.ok()) << shrunk.error().message;
  EXPECT_EQ(shrunk->inputs[0].numel, 64);
  EXPECT_DOUBLE_EQ(shrunk->rtol, 1e-5);
  expect_error(kGood + std::string("[guard_probe.gpu]\nN = 64\n"),
               {"guard_probe.gpu", "'gpu' is not one of"});
  expect_error(kGood + std::string("[guard_probe.cpu]\nM = 64\n"),
               {"guard_probe.cpu.M", "not a symbol"});
  expect_error(kGood + std::string("[guard_probe.cpu]\nN = 8192\n"),
               {"guard_probe.cpu.N", "must not exceed"});
  expect_error(kGood + std::string("[guard_probe.cpu]\nN = 1\n"), {"guard_probe.cpu", "shape"});
}

TEST_F(TaskLoaderTest, InitParametersMayBeSizeExpressions) {
  auto spec = load(replace(kGood, "low = 0, high = 16", "low = 0, high = \"N\""));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_DOUBLE_EQ(resolve_task(*spec, "ci")->inputs[1].init.b, 16);
  EXPECT_DOUBLE_EQ(resolve_task(*spec, "cpu")->inputs[1].init.b, 4096);
  expect_error(replace(kGood, "low = 0, high = 16", "low = 0, high = \"Q\""),
               {"sizes.ci", "unknown symbol 'Q'"});
  expect_error(replace(kGood, "low = 0, high = 16", "low = \"N\", high = 3"),
               {"must be greater than low"});
}

TEST_F(TaskLoaderTest, CustomInputsNeedAGenerator) {
  std::string custom = replace(kGood, "init = { dist = \"randint\", low = 0, high = 16 }",
                               "init = { dist = \"custom\" }");
  expect_error(custom, {"generate.cpp is missing"});
  std::ofstream(dir_ / "generate.cpp") << "// generator\n";
  auto spec = load(custom);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_TRUE(spec->has_generator());
  auto task = resolve_task(*spec, "ci");
  EXPECT_EQ(generator_signature(*task),
            "extern \"C\" void generate(std::uint64_t seed, float* x, int32_t* idx)");
}

TEST_F(TaskLoaderTest, IdIsAPlainNameAndTheFolders) {
  // An id names files under .kforge/: "../../../x" would put the secret seeds outside it.
  expect_error(replace(kGood, "id = \"t_axpy\"", "id = \"../../../x\""),
               {"task.toml:1:6: id", "'../../../x' is not a valid task id"});
  expect_error(replace(kGood, "id = \"t_axpy\"", "id = \"a/b\""), {"id", "not a valid task id"});
  expect_error(replace(kGood, "id = \"t_axpy\"", "id = \"t..axpy\""),
               {"id", "not a valid task id"});
  expect_error(replace(kGood, "id = \"t_axpy\"", "id = \".hidden\""),
               {"id", "not a valid task id"});
  expect_error(replace(kGood, "id = \"t_axpy\"", "id = \"t_other\""),
               {"id", "'t_other' must match the task's folder name 't_axpy'"});
  EXPECT_TRUE(is_safe_task_id("12p_rms-norm.v2"));
  EXPECT_FALSE(is_safe_task_id(""));
  EXPECT_FALSE(is_safe_task_id("-x"));
  EXPECT_FALSE(is_safe_task_id("x y"));
}

TEST_F(TaskLoaderTest, NonFiniteTolerancesAndCostsAreRefused) {
  expect_error(replace(kGood, "rtol = 1e-5", "rtol = inf"),
               {"task.toml:", "check.rtol", "must be a finite number, not inf"});
  expect_error(replace(kGood, "atol = 1e-6", "atol = nan"),
               {"task.toml:", "check.atol", "must be a finite number, not"});
  expect_error(replace(kGood, "atol = 1e-6\n", "atol = 1e-6\n[check.cpu]\natol = -inf\n"),
               {"check.cpu.atol", "finite"});
  expect_error(replace(kGood, "rtol = 1e-5", "rtol = -1e-5"),
               {"check.rtol", "must not be negative"});
  expect_error(replace(kGood, "flops = \"2*N\"", "flops = \"10**400*N\""),
               {"task.toml", "sizes.ci: cost.flops", "not a finite number"});
  expect_error(replace(kGood, "bytes = \"8*N\"", "bytes = \"sqrt(0-N)\""),
               {"task.toml", "sizes.ci: cost.bytes", "not a finite number"});
}

TEST_F(TaskLoaderTest, SizesThatDoNotFitInMemoryAreRefusedWhenUsed) {
  // 2^40 f32 elements: 4 TiB for x alone. The task loads (another machine may run it); resolving
  // that size here is refused.
  auto spec = load(replace(kGood, "[sizes.cpu]\nN = 4096",
                           "[sizes.cpu]\nN = 4096\n[sizes.huge]\nN = 1099511627776"));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_TRUE(resolve_task(*spec, "ci").ok());
  auto huge = resolve_task(*spec, "huge");
  ASSERT_FALSE(huge.ok());
  for (const char* f :
       {"size 'huge'", "the buffers need 10.0 TiB (inputs 6.0 TiB, outputs 4.0 TiB)",
        "this machine has", "smaller size"})
    EXPECT_NE(huge.error().message.find(f), std::string::npos) << huge.error().message;
  auto shapes = resolve_task_shapes(*spec, "huge");
  ASSERT_TRUE(shapes.ok()) << shapes.error().message;
  EXPECT_TRUE(check_fits_memory(*shapes, std::uint64_t{16} << 40).ok());
  auto ci = resolve_task_shapes(*spec, "ci");
  auto small = check_fits_memory(*ci, 100);  // 64 + 32 B of inputs, 64 B of outputs
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.error().message.find(
                "need 160 B (inputs 96 B, outputs 64 B) but this machine has 100 B"),
            std::string::npos)
      << small.error().message;
}

TEST_F(TaskLoaderTest, UnknownSizeSuggestsTheClosest) {
  auto spec = load(kGood);
  ASSERT_TRUE(spec.ok());
  auto r = resolve_task(*spec, "cpuu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no size 'cpuu' (it has: ci, cpu); did you mean 'cpu'?"),
            std::string::npos)
      << r.error().message;
}

TEST_F(TaskLoaderTest, TomlSyntaxErrorsHaveAPosition) {
  expect_error("id = \"x\"\n[sizes.ci\nN = 1\n", {"task.toml:2:"});
}

}  // namespace kforge::core
