// Stopping a child between calls: while stopped it uses no CPU at all (the judge's guarantee that
// neither side of a pair takes a CPU from the other), it runs again when thawed, each stop waits
// for its own report, and a child that dies instead is left to its parent's waitpid.
#include "kforge/eval/process_freeze.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace kforge::eval {
namespace {

double cpu_ms(pid_t pid) {
  clockid_t clock;
  timespec ts{};
  if (clock_getcpuclockid(pid, &clock) != 0 || clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A child whose two threads burn CPU for ever, as a spinning worker or a spoiler would.
pid_t spinning_child() {
  pid_t pid = fork();
  if (pid == 0) {
    auto spin = [] {
      for (unsigned long n = 0;; ++n) asm volatile("" : "+r"(n));
    };
    std::thread(spin).detach();
    spin();
  }
  return pid;
}

void end(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(ProcessFreeze, AStoppedChildUsesNoCpuUntilThawed) {
  const pid_t child = spinning_child();
  ASSERT_GT(child, 0);
  sleep_ms(20);
  begin_freeze(child);
  ASSERT_EQ(wait_frozen(child), FreezeOutcome::frozen);
  EXPECT_TRUE(is_frozen(child));
  // The last thread to stop is switched out just after the report, and only then is its clock
  // brought up to date: the reading settles within moments.
  double settled = cpu_ms(child);
  for (int i = 0; i < 100; ++i) {
    sleep_ms(1);
    const double now = cpu_ms(child);
    if (now == settled) break;
    settled = now;
  }
  sleep_ms(100);
  EXPECT_EQ(cpu_ms(child), settled) << "a stopped child used CPU";
  EXPECT_TRUE(is_frozen(child));

  thaw(child);
  double ran = 0;
  for (int i = 0; i < 200 && ran < 5; ++i) {
    sleep_ms(10);
    ran = cpu_ms(child) - settled;
  }
  EXPECT_GE(ran, 5) << "a thawed child did not run again";
  EXPECT_FALSE(is_frozen(child));
  end(child);
}

TEST(ProcessFreeze, EveryStopWaitsForItsOwnReport) {
  const pid_t child = spinning_child();
  ASSERT_GT(child, 0);
  for (int i = 0; i < 50; ++i) {
    begin_freeze(child);
    ASSERT_EQ(wait_frozen(child), FreezeOutcome::frozen) << "stop " << i;
    ASSERT_TRUE(is_frozen(child)) << "stop " << i;
    thaw(child);
  }
  end(child);
}

TEST(ProcessFreeze, AChildThatDiesIsLeftToItsParentsWait) {
  const pid_t child = fork();
  if (child == 0) _exit(7);
  ASSERT_GT(child, 0);
  siginfo_t gone{};  // dead before it is told to stop (not reaped: WNOWAIT)
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &gone, WEXITED | WNOWAIT), 0);
  begin_freeze(child);
  EXPECT_EQ(wait_frozen(child), FreezeOutcome::died);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);

  const pid_t killed = spinning_child();
  ASSERT_GT(killed, 0);
  kill(killed, SIGKILL);
  EXPECT_EQ(wait_frozen(killed), FreezeOutcome::died);
  ASSERT_EQ(waitpid(killed, &status, 0), killed);
  EXPECT_TRUE(WIFSIGNALED(status));
}

}  // namespace
}  // namespace kforge::eval
