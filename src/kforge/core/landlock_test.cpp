// Landlock through run_process: a confined child reads only what its view names, writes only in
// its writable trees, and cannot open TCP connections. Each check has an unconfined control.
#include "kforge/core/landlock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kforge/core/subprocess.h"

namespace kforge::core {
namespace {

class LandlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (landlock_abi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
    dir_ = std::filesystem::temp_directory_path() / ("kforge-landlock-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_ / "work");
    std::ofstream(dir_ / "secret.txt") << "the-secret\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult sh(const std::string& script, std::optional<LandlockView> view) {
    return run_process({"/bin/sh", "-c", script},
                       {.cwd = dir_ / "work", .landlock = std::move(view)});
  }
  LandlockView system_only() {
    return {.read_dirs = {"/usr", "/lib", "/lib64", "/bin"}, .write_files = {"/dev/null"}};
  }

  std::filesystem::path dir_;
};

}  // namespace

TEST_F(LandlockTest, ReadsOnlyWhatTheViewNames) {
  std::string cat = "cat " + (dir_ / "secret.txt").string();
  EXPECT_EQ(sh(cat, std::nullopt).out, "the-secret\n");  // control
  auto confined = sh(cat, system_only());
  EXPECT_GT(confined.landlock_abi, 0);
  EXPECT_FALSE(confined.success());
  EXPECT_EQ(confined.out, "");
  EXPECT_NE(confined.err.find("Permission denied"), std::string::npos) << confined.err;
  auto view = system_only();
  view.read_files.push_back(dir_ / "secret.txt");
  EXPECT_EQ(sh(cat, view).out, "the-secret\n");
}

TEST_F(LandlockTest, WritesOnlyInWritableTrees) {
  auto view = system_only();
  view.write_dirs.push_back(dir_ / "work");
  EXPECT_TRUE(sh("echo x > inside && cat inside > /dev/null", view).success());
  EXPECT_FALSE(sh("echo x > ../outside", view).success());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "outside"));
  EXPECT_TRUE(sh("echo x > ../outside", std::nullopt).success());  // control
}

TEST_F(LandlockTest, WritableTreesAreNotExecutable) {
  auto view = system_only();
  view.write_dirs.push_back(dir_ / "work");
  auto r = sh("cp /bin/true ./t && ./t", view);
  EXPECT_FALSE(r.success());
  EXPECT_TRUE(sh("cp /bin/true ./t && ./t", std::nullopt).success());  // control
}

TEST_F(LandlockTest, NoTcpConnect) {
  if (landlock_abi() < 4) GTEST_SKIP() << "Landlock ABI < 4 cannot restrict TCP";
  // Port 1 on loopback: refused when allowed to try, denied (EACCES) when confined.
  auto script = "exec bash -c 'echo > /dev/tcp/127.0.0.1/1' 2>&1";
  auto open = sh(script, std::nullopt);
  EXPECT_NE(open.out.find("refused"), std::string::npos) << open.out;
  auto confined = sh(script, system_only());
  EXPECT_NE(confined.out.find("Permission denied"), std::string::npos) << confined.out;
}

}  // namespace kforge::core
