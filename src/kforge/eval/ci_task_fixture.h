#pragma once
// A test fixture over one suite task at the ci size, opened once per test suite: the C++
// compiler with the shared test cache, the task's spec, and its context (secrets and reference
// outputs) in a state folder of this process, removed when the suite ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {

class CiTaskTest : public ::testing::Test {
 protected:
  // From a fixture's SetUpTestSuite: `suite` names the state folder, `task_id` the task in
  // bench/jaxbench. A task that does not load fails the suite, saying why.
  static void open_task(const std::string& suite, const std::string& task_id) {
    state_ = new std::filesystem::path(test_state_dir(suite));
    compiler_ = new toolchain::CppCompiler(test_compiler_options());
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / task_id);
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    spec_ = new core::TaskSpec(std::move(*spec));
    auto ctx = TaskContext::create(*spec_, "ci", *compiler_, *state_);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    ctx_ = new TaskContext(std::move(*ctx));
  }
  // From the fixture's TearDownTestSuite.
  static void close_task() {
    if (state_) std::filesystem::remove_all(*state_);
    delete ctx_;
    delete spec_;
    delete compiler_;
    delete state_;
    ctx_ = nullptr;
    spec_ = nullptr;
    compiler_ = nullptr;
    state_ = nullptr;
  }

  static inline std::filesystem::path* state_ = nullptr;
  static inline toolchain::CppCompiler* compiler_ = nullptr;
  static inline core::TaskSpec* spec_ = nullptr;
  static inline TaskContext* ctx_ = nullptr;
};

}  // namespace kforge::eval
