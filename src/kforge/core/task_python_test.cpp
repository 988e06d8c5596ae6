// kforge_task.py: the generated module is valid Python whose constants equal the task's shapes,
// params and ABI order (read back by the system's python3), and a param named like a Python
// keyword gets a trailing underscore instead of breaking the module.
#include "kforge/core/task_python.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "kforge/core/subprocess.h"
#include "kforge/core/task_loader.h"

namespace kforge::core {
namespace {

const char* kTask = R"(id = "t_py"
title = "y = lambda*x"
default_size = "ci"
[sizes.ci]
N = 16
M = 3
[params]
lambda = 0.1
steps = 3
two = 2.0
causal = true
[[inputs]]
name = "x"
dtype = "f32"
shape = ["M", "N"]
init = { dist = "normal", mean = 0.0, std = 1.0 }
[[inputs]]
name = "idx"
dtype = "i32"
shape = ["N"]
init = { dist = "randint", low = 0, high = 16 }
[[outputs]]
name = "y"
dtype = "f32"
shape = ["M", "N"]
[check]
rtol = 1e-5
atol = 1e-6
)";

class TaskPythonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::temp_directory_path() / ("kforge-task-py-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "t_py");
    std::ofstream(root_ / "t_py" / "reference.cpp") << "// reference\n";
    std::ofstream(root_ / "t_py" / "task.toml") << kTask;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(TaskPythonTest, ModuleReadsBackAsTheTasksConstants) {
  auto spec = load_task(root_ / "t_py");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto task = resolve_task(*spec, "ci");
  ASSERT_TRUE(task.ok()) << task.error().message;
  std::ofstream(root_ / "kforge_task.py") << task_python_module(*task);
  const char* dump =
      "import json, sys; sys.path.insert(0, sys.argv[1]); import kforge_task as t\n"
      "print(json.dumps({k: getattr(t, k) for k in ('TASK', 'SIZE', 'N', 'M', 'lambda_', 'steps', "
      "'two', 'causal',"
      " 'INPUTS', 'OUTPUTS', 'RTOL', 'ATOL')} | {'types': [type(t.two).__name__, "
      "type(t.steps).__name__]}))\n";
  auto r = run_process({"python3", "-c", dump, root_.string()});
  ASSERT_TRUE(r.success()) << r.describe() << "\n" << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["TASK"], "t_py");
  EXPECT_EQ(j["SIZE"], "ci");
  EXPECT_EQ(j["N"], 16);
  EXPECT_EQ(j["M"], 3);
  EXPECT_DOUBLE_EQ(j["lambda_"].get<double>(), 0.1);  // the double itself, not its f32 rounding
  EXPECT_EQ(j["steps"], 3);
  EXPECT_EQ(j["causal"], true);
  EXPECT_EQ(j["types"], nlohmann::json({"float", "int"}));  // 2.0 stays a float
  EXPECT_EQ(j["INPUTS"], nlohmann::json::parse(R"([["x", "f32", [3, 16]], ["idx", "i32", [16]]])"));
  EXPECT_EQ(j["OUTPUTS"], nlohmann::json::parse(R"([["y", "f32", [3, 16]]])"));
  EXPECT_DOUBLE_EQ(j["RTOL"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(j["ATOL"].get<double>(), 1e-6);
}

}  // namespace
}  // namespace kforge::core
