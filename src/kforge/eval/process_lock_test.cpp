// The machine lock across processes: forked processes, each with its own MachineLock on the same
// file (as two kforge commands in two folders would have), never measure at once; a measurement
// waits for another process's shared work to end; a wait past the bound goes on without the lock,
// says whom it waited for, and is marked as contended.
#include "kforge/eval/machine_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace kforge::eval {
namespace {

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

class ProcessLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-lock-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessLockOptions options(double bound_s = 30) const {
    return {dir_ / "machine.lock", bound_s, nullptr};
  }

  // Runs `body` in a child process, which writes its lines to a file of its own; returns the pid.
  pid_t spawn(const std::string& name, const std::function<void(std::ofstream&)>& body) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(60);
      std::ofstream out(dir_ / name);
      out.precision(17);
      body(out);
      out.close();
      ::_exit(0);
    }
    return pid;
  }
  std::vector<std::pair<double, double>> windows(const std::string& name) const {
    std::vector<std::pair<double, double>> w;
    std::ifstream in(dir_ / name);
    for (double a, b; in >> a >> b;) w.emplace_back(a, b);
    return w;
  }
  // Until `file` holds `pid`: the process got that far (a lock holder and a waiter in the turnstile
  // write their pids).
  static void wait_for_pid_in(const std::filesystem::path& file, pid_t pid) {
    for (int i = 0; i < 2000; ++i) {
      std::ifstream in(file);
      long got = 0;
      if (in >> got && got == pid) return;
      sleep_s(0.005);
    }
    ADD_FAILURE() << "pid " << pid << " never appeared in " << file;
  }
  static void wait_all(const std::vector<pid_t>& pids) {
    for (pid_t p : pids) {
      int status = 0;
      ::waitpid(p, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "child " << p << " status " << status;
    }
  }

  std::filesystem::path dir_;
};

// Three processes measure ten times each: no two windows overlap.
TEST_F(ProcessLockTest, MeasurementsOfSeveralProcessesNeverOverlap) {
  std::vector<pid_t> pids;
  for (int k = 0; k < 3; ++k)
    pids.push_back(spawn("w" + std::to_string(k), [&](std::ofstream& out) {
      auto across = ProcessLock::open(options());
      if (!across) ::_exit(3);
      MachineLock lock(std::move(*across));
      for (int i = 0; i < 10; ++i) {
        auto x = lock.measure();
        if (!x.contention.empty()) ::_exit(4);
        double start = monotonic_seconds();
        sleep_s(0.01);
        out << start << " " << monotonic_seconds() << "\n";
        x.unlock();
      }
    }));
  wait_all(pids);
  std::vector<std::pair<double, double>> all;
  for (int k = 0; k < 3; ++k) {
    auto w = windows("w" + std::to_string(k));
    EXPECT_EQ(w.size(), 10u);
    all.insert(all.end(), w.begin(), w.end());
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_LE(all[i - 1].second, all[i].first) << "windows " << i - 1 << " and " << i << " overlap";
}

// A process compiling (shared) holds off another's timing until it is done, and a timing holds
// off another's compile.
TEST_F(ProcessLockTest, SharedWorkAndMeasurementsExcludeEachOther) {
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  pid_t sharer = spawn("shared", [&](std::ofstream& out) {
    auto across = ProcessLock::open(options());
    if (!across) ::_exit(3);
    MachineLock lock(std::move(*across));
    auto a = lock.share();
    auto b = lock.share();  // a second thread's share piggybacks on the same file lock
    double start = monotonic_seconds();
    char c;
    if (::write(ready[1], "x", 1) != 1 || ::read(release[0], &c, 1) != 1) ::_exit(5);
    out << start << " " << monotonic_seconds() << "\n";
  });
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  pid_t measurer = spawn("exclusive", [&](std::ofstream& out) {
    auto across = ProcessLock::open(options());
    if (!across) ::_exit(3);
    MachineLock lock(std::move(*across));
    auto x = lock.measure();
    double start = monotonic_seconds();
    sleep_s(0.2);
    out << start << " " << monotonic_seconds() << "\n";
  });
  wait_for_pid_in(dir_ / "machine.lock.queue", measurer);  // the measurer waits in the turnstile
  pid_t late_sharer = spawn("late", [&](std::ofstream& out) {
    auto across = ProcessLock::open(options());
    if (!across) ::_exit(3);
    MachineLock lock(std::move(*across));
    auto s = lock.share();
    double start = monotonic_seconds();
    out << start << " " << monotonic_seconds() << "\n";
  });
  sleep_s(0.2);  // the late sharer reaches the turnstile (or not yet: either way it must wait)
  ASSERT_EQ(::write(release[1], "x", 1), 1);
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
  wait_all({sharer, measurer, late_sharer});
  auto shared = windows("shared"), exclusive = windows("exclusive"), late = windows("late");
  ASSERT_EQ(shared.size(), 1u);
  ASSERT_EQ(exclusive.size(), 1u);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_GE(exclusive[0].first, shared[0].second)
      << "the timing started while another process compiled";
  // The late sharer came while the timing waited in the turnstile: it goes after the timing.
  EXPECT_GE(late[0].first, exclusive[0].second) << "a compile slipped in ahead of a waiting timing";
}

// Past the bound a measurement proceeds, marked as contended, and the wait named the holder.
TEST_F(ProcessLockTest, WaitPastTheBoundProceedsAndNamesTheHolder) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t holder = spawn("holder", [&](std::ofstream&) {
    auto across = ProcessLock::open(options());
    if (!across) ::_exit(3);
    MachineLock lock(std::move(*across));
    auto x = lock.measure();
    (void)!::write(ready[1], "x", 1);
    sleep_s(1.5);
  });
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  std::vector<std::string> said;
  auto o = options(0.3);
  o.on_wait = [&](std::string_view m) { said.emplace_back(m); };
  auto across = ProcessLock::open(o);
  ASSERT_TRUE(across) << across.error().message;
  MachineLock lock(std::move(*across));
  double start = monotonic_seconds();
  auto x = lock.measure();
  double waited = monotonic_seconds() - start;
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 1.2) << "the bound was not kept";
  EXPECT_NE(x.contention.find("pid " + std::to_string(holder)), std::string::npos) << x.contention;
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("waiting for another kforge process to finish"), std::string::npos)
      << said[0];
  EXPECT_NE(said[0].find("(pid " + std::to_string(holder) + ")"), std::string::npos) << said[0];
  // The setting that bounds the wait is named, so a user knows how to shorten it.
  EXPECT_NE(said[0].find("KFORGE_LOCK_WAIT_S sets the bound"), std::string::npos) << said[0];
  x.unlock();
  wait_all({holder});
  ::close(ready[0]);
  ::close(ready[1]);
  // Once the holder is gone (its lock went with it), the machine is had at once.
  auto again = lock.measure();
  EXPECT_TRUE(again.contention.empty()) << again.contention;
}

TEST_F(ProcessLockTest, AnUnwritableFolderIsAnErrorThatNamesTheFile) {
  auto r = ProcessLock::open({"/proc/kforge-no-such/machine.lock", 1, nullptr});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("/proc/kforge-no-such"), std::string::npos) << r.error().message;
}

// Ctrl-C while another holder keeps the machine: the wait ends within a poll (0.1 s), unlocked, as
// it would past its bound, not after the bound's minutes.
TEST_F(ProcessLockTest, CtrlCEndsAWaitForTheLock) {
  auto holder = ProcessLock::open(options());
  ASSERT_TRUE(holder.ok());
  ASSERT_TRUE(holder->lock_exclusive());
  std::atomic<bool> cancel{false};
  auto o = options(300);
  o.cancel = &cancel;
  auto waiter = ProcessLock::open(o);
  ASSERT_TRUE(waiter.ok());
  std::thread ctrl_c([&] {
    sleep_s(0.3);
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(waiter->lock_exclusive());
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  EXPECT_LT(took, 1.5);
  holder->unlock();
}

}  // namespace
}  // namespace kforge::eval
