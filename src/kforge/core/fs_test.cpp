// write_atomic on a full disk (simulated with a file-size limit in a child process): an error
// that says so, and nothing left behind, neither the file nor its temporary.
#include "kforge/core/fs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace kforge::core {
namespace {

std::filesystem::path fresh_dir(const char* name) {
  auto d = std::filesystem::temp_directory_path() / (std::string("kforge-fs-") + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

TEST(WriteAtomic, WritesAndReplaces) {
  auto d = fresh_dir("ok");
  ASSERT_TRUE(write_atomic(d / "f", "one").ok());
  ASSERT_TRUE(write_atomic(d / "f", "two").ok());
  EXPECT_EQ(*read_text(d / "f"), "two");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d), {}), 1);
  std::filesystem::remove_all(d);
}

TEST(WriteAtomic, AFullDiskLeavesNothingBehind) {
  auto d = fresh_dir("full");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG, as on a full disk
    rlimit lim{16, 16};
    setrlimit(RLIMIT_FSIZE, &lim);
    auto st = write_atomic(d / "f", std::string(4096, 'x'));
    _exit(!st.ok() && st.error().message.find("disk full") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the failed write was not reported";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d), {}), 0) << "a temporary file was left behind";
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kforge::core
