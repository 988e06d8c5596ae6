// What `kforge bench --tasks/--size` selects is checked before anything runs: an unknown task id
// or a size no selected task has is refused, naming it and suggesting the closest known one.
#include "kforge/eval/suite_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kforge::eval {
namespace {

class SuiteSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    suite_ = std::filesystem::temp_directory_path() / ("kforge-suite-" + std::to_string(::getpid()));
    add_task("12p_rmsnorm", "[sizes.ci]\nN = 8\n[sizes.cpu]\nN = 64\n");
    add_task("8p_gemm", "[sizes.ci]\nN = 8\n[sizes.full]\nN = 512\n");
  }
  void TearDown() override { std::filesystem::remove_all(suite_); }

  void add_task(const std::string& id, const std::string& sizes) {
    auto dir = suite_ / id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "task.toml") << "id = \"" << id << "\"\n" << sizes
                                     << "[[inputs]]\nname = \"x\"\ndtype = \"f32\"\nshape = [\"N\"]\n"
                                        "init = { dist = \"normal\", mean = 0.0, std = 1.0 }\n"
                                        "[[outputs]]\nname = \"y\"\ndtype = \"f32\"\nshape = [\"N\"]\n"
                                        "[check]\nrtol = 1e-5\natol = 1e-6\n";
    std::ofstream(dir / "reference.cpp") << "// reference\n";
  }
  std::string error_of(std::vector<std::string> tasks, const std::string& size) const {
    SuiteRunOptions o;
    o.suite = suite_;
    o.tasks = std::move(tasks);
    o.size = size;
    auto st = check_selection(o);
    return st ? std::string("(no error)") : st.error().message;
  }

  std::filesystem::path suite_;
};

TEST_F(SuiteSelection, KnownTasksAndSizesPass) {
  EXPECT_EQ(error_of({}, ""), "(no error)");
  EXPECT_EQ(error_of({"12p_rmsnorm", "8p_gemm"}, "ci"), "(no error)");
  EXPECT_EQ(error_of({"8p_gemm"}, "full"), "(no error)");
  EXPECT_EQ(error_of({}, "cpu"), "(no error)");  // declared by one task: the others report it
}

TEST_F(SuiteSelection, UnknownTaskIsNamedWithASuggestion) {
  std::string e = error_of({"12p_rmsnorm", "foo"}, "");
  EXPECT_NE(e.find("--tasks: no task 'foo' in"), std::string::npos) << e;
  e = error_of({"rmsnorm"}, "");
  EXPECT_NE(e.find("no task 'rmsnorm'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean '12p_rmsnorm'?"), std::string::npos) << e;
}

TEST_F(SuiteSelection, UnknownSizeIsNamedWithASuggestion) {
  std::string e = error_of({}, "small");
  EXPECT_NE(e.find("--size: no selected task has a size 'small' (they have: ci, cpu, full)"), std::string::npos) << e;
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
  e = error_of({"12p_rmsnorm"}, "full");  // only the selected tasks count
  EXPECT_NE(e.find("no selected task has a size 'full' (they have: ci, cpu)"), std::string::npos) << e;
  e = error_of({}, "cpuu");
  EXPECT_NE(e.find("did you mean 'cpu'?"), std::string::npos) << e;
}

}  // namespace
}  // namespace kforge::eval
