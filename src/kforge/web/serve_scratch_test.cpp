// kforge serve's scratch folder does not outlive its server: removed at its end, and a dead
// server's removed when the next starts, while a live server's is left alone.
#include "kforge/web/serve_scratch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace kforge::web {
namespace {

class ServeScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = std::filesystem::temp_directory_path() /
           ("kforge-serve-scratch-" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp_);
  }
  void TearDown() override { std::filesystem::remove_all(tmp_); }
  std::filesystem::path folder(const std::string& name) {
    auto p = tmp_ / name;
    std::filesystem::create_directories(p);
    std::ofstream(p / ".diff-a") << "left behind\n";
    return p;
  }
  std::filesystem::path tmp_;
};

TEST_F(ServeScratchTest, RemovedAtTheEndAndADeadServersAtTheStart) {
  // 999999999 is above any pid_max: no process has it.
  auto dead = folder("serve-999999999");
  auto alive = folder("serve-" + std::to_string(::getppid()));
  auto other = folder("eval-123-abcd");  // not a server's
  std::filesystem::path mine;
  {
    ServeScratch scratch(tmp_);
    mine = scratch.dir();
    EXPECT_EQ(mine, tmp_ / ("serve-" + std::to_string(::getpid())));
    EXPECT_FALSE(std::filesystem::exists(dead));
    EXPECT_TRUE(std::filesystem::exists(alive));
    EXPECT_TRUE(std::filesystem::exists(other));
    std::filesystem::create_directories(mine);
    std::ofstream(mine / ".diff-b") << "a diff's file\n";
  }
  EXPECT_FALSE(std::filesystem::exists(mine));
  EXPECT_TRUE(std::filesystem::exists(alive));
}

}  // namespace
}  // namespace kforge::web
