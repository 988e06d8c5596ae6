// The load probe: /proc/stat and task-stat parsing on fixed texts, the busy judgement on made-up
// samples, and on the real machine: spinning processes beyond the CPU count read as busy.
#include "kforge/eval/load_probe.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace kforge::eval {
namespace {

const char* kProcStat =
    "cpu  4705 356 584 3699 23 0 12 100 0 0\n"
    "cpu0 1393 280 260 1800 11 0 6 50 0 0\n"
    "cpu1 3312 76 324 1899 12 0 6 50 0 0\n"
    "intr 114930548 113199788 3 0 5 263 0 4 [... 200 more]\n"
    "ctxt 1990473\n"
    "btime 1062191376\n"
    "processes 2915\n"
    "procs_running 5\n"
    "procs_blocked 0\n";

TEST(ProcStat, ParsesTheAggregateLineAndRunnableCount) {
  auto s = parse_proc_stat(kProcStat);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->procs_running, 5);
  EXPECT_EQ(s->steal_ticks, 100u);
  EXPECT_EQ(s->idle_ticks, 3699u + 23u);
  EXPECT_EQ(s->busy_ticks, 4705u + 356u + 584u + 0u + 12u);
}

TEST(ProcStat, RefusesTextWithoutTheFieldsItNeeds) {
  EXPECT_FALSE(
      parse_proc_stat("cpu  1 2 3 4\nprocs_running 2\n"));  // an old kernel's short cpu line
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parse_proc_stat(""));
}

TEST(TaskStat, StateComesAfterTheLastParenthesis) {
  EXPECT_EQ(parse_task_state("4242 (kforge) R 1 4242 4242 0 -1"), 'R');
  EXPECT_EQ(parse_task_state("4243 (a) S (b)) S 1 2"), 'S');
  EXPECT_EQ(parse_task_state("4244 (x) "), 0);
  EXPECT_EQ(parse_task_state("garbage"), 0);
}

[[noreturn]] void spin() {
  volatile unsigned long x = 0;
  for (;;) x = x + 1;
}

LoadSample sample(int outside, double steal, int cpus = 4) {
  LoadSample s;
  s.outside_running = outside;
  s.procs_running = outside + 1;
  s.own_running = 1;
  s.steal = steal;
  s.cpus = cpus;
  return s;
}

TEST(JudgeLoad, QuietMachineIsNotBusy) {
  auto v = judge_load({sample(0, 0), sample(1, 0.01), sample(0, 0)}, 4);
  EXPECT_FALSE(v.busy) << v.reason;
  EXPECT_TRUE(v.reason.empty());
}

TEST(JudgeLoad, OutsideWorkOnTheCpusTheMeasurementWantsIsBusy) {
  auto v = judge_load({sample(2, 0), sample(3, 0), sample(2, 0)}, 4);
  EXPECT_TRUE(v.busy);
  EXPECT_NE(v.reason.find("runnable tasks outside kforge"), std::string::npos) << v.reason;
  // The same work beside a one-thread measurement leaves it three free CPUs.
  EXPECT_FALSE(judge_load({sample(2, 0), sample(3, 0), sample(2, 0)}, 1).busy);
  // With no measurement in mind, busy means more runnable work than CPUs.
  EXPECT_FALSE(judge_load({sample(4, 0)}, 0).busy);
  EXPECT_TRUE(judge_load({sample(6, 0)}, 0).busy);
}

TEST(JudgeLoad, StealAndOversubscriptionAreNamed) {
  auto steal = judge_load({sample(0, 0.02), sample(0, 0.20)}, 2);
  EXPECT_TRUE(steal.busy);
  EXPECT_NE(steal.reason.find("steal"), std::string::npos) << steal.reason;
  auto over = judge_load({sample(0, 0)}, 16);
  EXPECT_TRUE(over.busy);
  EXPECT_NE(over.reason.find("oversubscribed OpenMP: 16 threads on 4 CPUs"), std::string::npos)
      << over.reason;
}

// More spinning processes than CPUs: the probe sees them as runnable work outside kforge (they
// are not among the processes it watches) and calls the machine busy.
TEST(LoadProbe, SpinnersBeyondTheCpuCountReadAsBusy) {
  const int cpus = usable_cpus();
  std::vector<pid_t> spinners;
  for (int i = 0; i < cpus + 2; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::alarm(10);  // never outlives a crashed test
      spin();
    }
    spinners.push_back(pid);
  }
  LoadProbe probe;
  auto samples = probe.sample_for(0.4, 0.04);
  auto verdict = judge_load(samples, 0);
  for (pid_t p : spinners) ::kill(p, SIGKILL);
  for (pid_t p : spinners) ::waitpid(p, nullptr, 0);
  EXPECT_TRUE(verdict.busy) << "outside runnable " << verdict.outside_running << " on " << cpus
                            << " CPUs";
  EXPECT_GE(verdict.outside_running, cpus + 1.0);
  EXPECT_GE(samples.size(), 5u);
  EXPECT_GT(samples.back().procs_running, cpus);
}

TEST(LoadProbe, WatchedSpinnersCountAsOwn) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(10);
    spin();
  }
  ::usleep(50'000);
  LoadProbe probe;
  int own = 0;
  for (int i = 0; i < 10; ++i) own += probe.sample({pid}).own_running;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_GE(own, 15)
      << "the spinner (and this thread) should be counted as kforge's own most of the time";
}

}  // namespace
}  // namespace kforge::eval
