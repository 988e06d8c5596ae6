// The child's set-up between fork and exec: a Landlock ruleset whose descriptor is one of those
// the child's channel and output are copied onto (0-3) still confines it.
#include "kforge/eval/runner_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

namespace kforge::eval {
namespace {

TEST(RunnerProcessTest, ALandlockRulesetOnALowDescriptorStillApplies) {
  // Free descriptor 3 for the ruleset (saved and put back after).
  const int saved = fcntl(3, F_DUPFD_CLOEXEC, 10);
  ::close(3);
  core::LandlockView view;
  view.read_dirs = {"/usr", "/lib", "/lib64", "/bin"};
  auto ruleset = core::LandlockRuleset::prepare(view);
  ASSERT_TRUE(ruleset.ok()) << ruleset.error().message;
  if (ruleset->abi() == 0) GTEST_SKIP() << "no Landlock on this machine";
  ASSERT_EQ(fcntl(3, F_GETFD), FD_CLOEXEC) << "the ruleset took descriptor 3";
  RunnerLaunch how{{"/bin/true"}, {}, &*ruleset, {}, false};
  auto child = RunnerProcess::start(1, "/", how);
  if (saved >= 0) {
    dup3(saved, 3, O_CLOEXEC);
    ::close(saved);
  }
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto exit = child->wait(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
}

}  // namespace
}  // namespace kforge::eval
