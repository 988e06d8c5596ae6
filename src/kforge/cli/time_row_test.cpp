// kforge eval's `time` row accounts for the waits: an evaluation that spent 190 s waiting for the
// machine lock and for quiet says so, instead of a total its phases do not add up to.
#include "kforge/cli/time_row.h"

#include <gtest/gtest.h>

namespace kforge::cli {
namespace {

eval::Evaluation timed() {
  eval::Evaluation e;
  e.partner = "baseline";
  e.phases.total_s = 196.03;
  e.phases.check_s = 0.06;
  e.phases.time_s = 5.84;
  e.compile.cached = true;
  return e;
}

TEST(TimeRow, NamesTheLockAndQuietWaits) {
  auto e = timed();
  e.lock_wait_s = 184.2;
  e.quiet_wait.waited_s = 6;
  EXPECT_EQ(time_row(e),
            "196.03 s (waited 184.20 for the machine lock, 6.00 for quiet; compile 0.00 cached, "
            "check 0.06, timing 5.84)");
}

TEST(TimeRow, OneWaitAloneAndThePartnerBuild) {
  auto e = timed();
  e.quiet_wait.waited_s = 12.5;
  e.phases.partner_s = 61.0;
  EXPECT_EQ(time_row(e),
            "196.03 s (waited 12.50 for quiet; building the baseline 61.00, compile 0.00 cached, "
            "check 0.06, timing 5.84)");
}

TEST(TimeRow, NoWaitNoWaitWords) {
  auto e = timed();
  e.lock_wait_s = 0.01;  // taking a free lock is no wait worth a word
  EXPECT_EQ(time_row(e), "196.03 s (compile 0.00 cached, check 0.06, timing 5.84)");
}

}  // namespace
}  // namespace kforge::cli
