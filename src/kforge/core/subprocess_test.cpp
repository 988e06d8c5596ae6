// run_process: output capture, exit status, signals, a timeout that kills the whole group, and
// what every child gets (no inherited descriptors, death with kforge) or a sandboxed one asks
// for (a clean environment, rlimits).
#include "kforge/core/subprocess.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

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
  auto r = run_process({"/bin/sh", "-c", "(sleep 2; touch " + marker.string() + ") & sleep 30"},
                       {.timeout = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_ms, 5000);
  sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Subprocess, TimeoutAppliesWhenTheChildClosesItsOutput) {
  auto r = run_process({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"},
                       {.timeout = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
}

TEST(Subprocess, ReportsSignals) {
  auto r = run_process({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.signal, 11);
  EXPECT_NE(r.describe().find("signal 11"), std::string::npos);
}

TEST(Subprocess, ChildInheritsNoDescriptorBeyondStderr) {
  int fd = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: a careless open elsewhere in kforge
  ASSERT_GE(fd, 3);
  auto probe = "[ -e /proc/self/fd/" + std::to_string(fd) + " ] && echo leaked || echo closed";
  auto r = run_process({"/bin/sh", "-c", probe});
  close(fd);
  EXPECT_EQ(r.out, "closed\n");
}

TEST(Subprocess, CleanEnvironmentReplacesKforgesOwn) {
  setenv("KFORGE_TEST_SECRET", "sk-do-not-leak", 1);
  // Control: without clean_env the child inherits kforge's environment.
  EXPECT_NE(run_process({"/usr/bin/env"}).out.find("sk-do-not-leak"), std::string::npos);
  auto r =
      run_process({"env"}, {.extra_env = {"B=2", "A=3"},
                            .clean_env = std::vector<std::string>{"PATH=/usr/bin:/bin", "A=1"}});
  unsetenv("KFORGE_TEST_SECRET");
  ASSERT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out, "PATH=/usr/bin:/bin\nB=2\nA=3\n");  // extra_env replaces A
}

TEST(Subprocess, MissingProgramIsASpawnFailure) {
  auto r = run_process({"kforge-no-such-program"},
                       {.clean_env = std::vector<std::string>{"PATH=/usr/bin:/bin"}});
  EXPECT_TRUE(r.spawn_failed);
  EXPECT_NE(r.describe().find("cannot find 'kforge-no-such-program' on PATH (/usr/bin:/bin)"),
            std::string::npos);
  auto bad_cwd = run_process({"/bin/true"}, {.cwd = "/nonexistent-kforge-dir"});
  EXPECT_TRUE(bad_cwd.spawn_failed);
  EXPECT_NE(bad_cwd.err.find("chdir /nonexistent-kforge-dir"), std::string::npos);
}

TEST(Subprocess, FileSizeLimitStopsTheWriter) {
  auto dir = std::filesystem::temp_directory_path() /
             ("kforge-subprocess-fsize-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto write_2mb = "head -c 2000000 /dev/zero > " + (dir / "big").string();
  auto capped = run_process({"/bin/sh", "-c", write_2mb}, {.limits = {.file_size = 1 << 20}});
  EXPECT_FALSE(capped.success());
  EXPECT_EQ(std::filesystem::file_size(dir / "big"), 1u << 20);
  // Control: the same write without the limit.
  EXPECT_TRUE(run_process({"/bin/sh", "-c", write_2mb}).success());
  EXPECT_EQ(std::filesystem::file_size(dir / "big"), 2000000u);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, LimitsReachTheChild) {
  // Allow core files here, so that the child's 0 is run_process's doing.
  rlimit saved{};
  getrlimit(RLIMIT_CORE, &saved);
  rlimit cores{saved.rlim_max, saved.rlim_max};
  setrlimit(RLIMIT_CORE, &cores);
  auto r = run_process({"/bin/sh", "-c", "ulimit -f; ulimit -v; ulimit -c"},
                       {.limits = {.file_size = 4 << 20, .address_space = 1ULL << 30}});
  auto with_cores = run_process({"/bin/sh", "-c", "ulimit -c"}, {.limits = {.core_dumps = true}});
  setrlimit(RLIMIT_CORE, &saved);
  EXPECT_EQ(r.out, "8192\n1048576\n0\n");  // in 512-byte blocks and KiB
  if (saved.rlim_max != 0) {
    EXPECT_NE(with_cores.out, "0\n");  // control
  }
}

// Kills a process that started a long child, as an OOM kill or `kill -9 kforge` would; returns
// whether that child was still alive afterwards.
bool child_outlives_its_parent(bool die_with_parent) {
  auto pid_file =
      std::filesystem::temp_directory_path() / ("kforge-pdeathsig-" + std::to_string(getpid()));
  std::filesystem::remove(pid_file);
  pid_t parent = fork();
  if (parent == 0) {
    run_process({"/bin/sh", "-c", "echo $$ > " + pid_file.string() + "; exec sleep 30"},
                {.timeout = std::chrono::seconds(60), .die_with_parent = die_with_parent});
    _exit(0);
  }
  pid_t child = 0;
  for (int i = 0; i < 500 && child == 0; ++i) {
    std::ifstream(pid_file) >> child;
    if (child == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  std::filesystem::remove(pid_file);
  if (child == 0) return false;
  // Gone, or a zombie waiting for a reaper (a container's pid 1 may never reap it).
  auto dead = [&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, comm, state;
    return !(stat >> pid >> comm >> state) || state == "Z";
  };
  for (int i = 0; i < 200 && !dead(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  bool alive = !dead();
  kill(child, SIGKILL);
  return alive;
}

TEST(Subprocess, ChildDiesWithItsParent) {
  EXPECT_FALSE(child_outlives_its_parent(true));
  EXPECT_TRUE(
      child_outlives_its_parent(false));  // control: without the parent-death signal it lives on
}

}  // namespace kforge::core
