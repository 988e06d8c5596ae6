// Bad surroundings a new user meets get a clear word and exit 2, not an internal error: a state
// folder kforge cannot create or write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class CliErrors : public CliScenario {};

TEST_F(CliErrors, UnusableStateFolderIsAUsageError) {
  for (const char* bad : {"/proc/kforge-nonexistent/state", "/dev/null/state"}) {
    auto r = core::run_process({kforge(), "sessions"}, {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = {std::string("KFORGE_DIR=") + bad}});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot be used"));
    EXPECT_THAT(r.err, HasSubstr("set KFORGE_DIR"));
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("internal error")));
  }
  // Read-only commands need no state folder.
  auto list = core::run_process({kforge(), "list"}, {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = {"KFORGE_DIR=/dev/null/state"}});
  EXPECT_EQ(list.exit_code, 0) << list.err;
}

}  // namespace
}  // namespace kforge::modes
