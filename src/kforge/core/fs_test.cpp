// write_atomic on a full disk (simulated with a file-size limit in a child process): an error
// that says so, and nothing left behind. Source files named on the command line: a folder, a
// binary, a non-UTF-8 file or a missing path is refused with the path and the reason before
// anything is compiled; C++ text is read as is.
#include "kforge/core/fs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kforge::core {
namespace {

std::filesystem::path fresh_dir(const char* name) {
  auto d = std::filesystem::temp_directory_path() /
           (std::string("kforge-fs-") + name + "-" + std::to_string(getpid()));
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
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d), {}), 0)
      << "a temporary file was left behind";
  std::filesystem::remove_all(d);
}

class ReadSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-fs-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  static std::string error_of(const std::filesystem::path& p) {
    auto r = read_source(p);
    return r ? std::string("(no error)") : r.error().message;
  }

  std::filesystem::path dir_;
};

TEST_F(ReadSource, ReadsCppText) {
  auto p = write("k.cpp", "// caf\xC3\xA9\nextern \"C\" void kernel() {}\n");
  auto r = read_source(p);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "// caf\xC3\xA9\nextern \"C\" void kernel() {}\n");
  EXPECT_TRUE(read_source(write("-x.cpp", "int x;\n")));  // a leading dash is only a name
}

TEST_F(ReadSource, RefusesWhatIsNotASourceFile) {
  std::filesystem::create_directories(dir_ / "kernels");
  std::string folder = error_of(dir_ / "kernels");
  EXPECT_NE(folder.find("kernels: is a folder"), std::string::npos) << folder;
  std::string binary = error_of(write("k.so", std::string("\x7f"
                                                          "ELF\x02\x01\x01\0\0\0",
                                                          10)));
  EXPECT_NE(binary.find("k.so: a binary file (a NUL byte at offset 7)"), std::string::npos)
      << binary;
  std::string latin1 = error_of(write("l.cpp", "// caf\xE9\n"));
  EXPECT_NE(latin1.find("l.cpp: not UTF-8 text (an invalid byte at offset 6)"), std::string::npos)
      << latin1;
  std::string missing = error_of(dir_ / "nope.cpp");
  EXPECT_NE(missing.find("nope.cpp: no such file"), std::string::npos) << missing;
}

// A kernel "source" that leads into the state folder, by a symlink, a path or a hard link, is
// refused before its text can reach a compiler's diagnostic (it printed a secret seed).
TEST_F(ReadSource, RefusesKforgesOwnFiles) {
  const auto state = dir_ / ".kforge";
  std::filesystem::create_directories(state / "secrets");
  const auto seeds = state / "secrets" / "12p_rmsnorm.seeds";
  std::ofstream(seeds) << "123456789\n";
  std::filesystem::create_symlink(seeds, dir_ / "kernel.cpp");
  std::filesystem::create_hard_link(seeds, dir_ / "linked.cpp");
  for (const auto& p : {dir_ / "kernel.cpp", dir_ / "linked.cpp", seeds,
                        dir_ / "x" / ".." / ".kforge" / "secrets" / "12p_rmsnorm.seeds"}) {
    std::filesystem::create_directories(dir_ / "x");
    auto r = read_source(p, state);
    ASSERT_FALSE(r) << p;
    EXPECT_NE(r.error().message.find("kforge's own files"), std::string::npos) << r.error().message;
  }
  auto ok = read_source(write("k.cpp", "int x;\n"), state);
  EXPECT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(read_source(write("k2.cpp", "int y;\n"), dir_ / "absent-state"));
}

}  // namespace
}  // namespace kforge::core
