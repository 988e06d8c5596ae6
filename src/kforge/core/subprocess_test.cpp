// run_process: output capture, exit status, signals, and a timeout that kills the whole group.
#include "kforge/core/subprocess.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace kforge::core {

TEST(Subprocess, CapturesOutputAndStatus) {
  auto r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.success());
}

TEST(Subprocess, PassesStdin) {
  auto r = run_process({"/bin/cat"}, {.stdin_data = std::string("hello")});
  EXPECT_EQ(r.out, "hello");
}

TEST(Subprocess, TimeoutKillsTheGroupIncludingChildren) {
  auto marker = std::filesystem::temp_directory_path() / "kforge-subprocess-orphan";
  std::filesystem::remove(marker);
  // The grandchild would create the marker after 2 s if it survived the kill.
  auto r = run_process({"/bin/sh", "-c", "(sleep 2; touch " + marker.string() + ") & sleep 30"}, {.timeout = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_ms, 5000);
  sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Subprocess, TimeoutAppliesWhenTheChildClosesItsOutput) {
  auto r = run_process({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"}, {.timeout = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
}

TEST(Subprocess, ReportsSignals) {
  auto r = run_process({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.signal, 11);
  EXPECT_NE(r.describe().find("signal 11"), std::string::npos);
}

}  // namespace kforge::core
