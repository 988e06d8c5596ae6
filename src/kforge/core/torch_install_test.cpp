// Where libtorch is found: the Python environment's wheel first (headers, libraries, the CMake
// files, the site-packages folders its libraries load from), the system's libtorch second, and
// an error naming both places when neither exists. Fake trees stand for the installations.
#include "kforge/core/torch_install.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace kforge::core {
namespace {

using ::testing::HasSubstr;

class FindTorch : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("kforge-torch-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    root_ = std::filesystem::weakly_canonical(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void touch(const std::filesystem::path& p, const std::string& text = "") {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // A venv's torch wheel, as pip lays it out.
  std::filesystem::path wheel(const std::string& packages = "lib/python3.12/site-packages") {
    auto torch = root_ / "env" / packages / "torch";
    touch(torch / "include" / "ATen" / "ATen.h");
    touch(torch / "include" / "torch" / "csrc" / "api" / "include" / "torch" / "torch.h");
    touch(torch / "lib" / "libtorch_cpu.so");
    touch(torch / "share" / "cmake" / "Torch" / "TorchConfig.cmake");
    touch(torch / "version.py", "__all__ = []\n__version__ = '2.15.0+cu132'\ndebug = False\n");
    return torch;
  }
  std::filesystem::path root_;
};

TEST_F(FindTorch, TheEnvironmentsWheelWithItsIncludeLibAndCmakeFolders) {
  auto torch = wheel();
  touch(torch / "lib" / "libtorch_cuda.so");
  touch(torch.parent_path() / "nvidia" / "cu13" / "lib" / "libcudart.so.13");
  auto t = find_torch(root_ / "env", root_ / "usr");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->wheel);
  EXPECT_EQ(t->root, torch);
  ASSERT_EQ(t->include_dirs.size(), 2u);
  EXPECT_EQ(t->include_dirs[0], torch / "include");
  EXPECT_EQ(t->include_dirs[1], torch / "include" / "torch" / "csrc" / "api" / "include");
  EXPECT_EQ(t->lib_dir, torch / "lib");
  EXPECT_EQ(t->cmake_dir, torch / "share" / "cmake");
  EXPECT_EQ(t->version, "2.15.0+cu132");
  EXPECT_TRUE(t->cuda);
  // libtorch_cpu.so of a CUDA wheel loads libcudart from nvidia/: a baseline's process reads it.
  EXPECT_EQ(t->runtime_dirs,
            (std::vector<std::filesystem::path>{torch, torch.parent_path() / "nvidia"}));
  EXPECT_EQ(t->describe(),
            "torch 2.15.0+cu132 of the Python environment " + (root_ / "env").string());
}

TEST_F(FindTorch, ADebianPrefixsDistPackagesCount) {
  auto torch = wheel("lib/python3/dist-packages");
  auto t = wheel_torch(root_ / "env");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->root, torch);
  EXPECT_FALSE(t->cuda);
}

TEST_F(FindTorch, AWheelWithoutHeadersGivesWayToTheSystemsLibtorch) {
  auto torch = wheel();
  std::filesystem::remove_all(torch / "include");
  touch(root_ / "usr" / "include" / "ATen" / "ATen.h");
  touch(root_ / "usr" / "lib" / "x86_64-linux-gnu" / "libtorch_cpu.so");
  auto t = find_torch(root_ / "env", root_ / "usr");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_FALSE(t->wheel);
  EXPECT_EQ(t->lib_dir, root_ / "usr" / "lib" / "x86_64-linux-gnu");
  // The system's headers are in the compiler's own path: no -I for them.
  EXPECT_TRUE(t->include_dirs.empty());
  EXPECT_THAT(t->describe(), HasSubstr("the system's libtorch"));
}

TEST_F(FindTorch, NeitherIsAnErrorNamingBothPlacesAndTheRemedy) {
  std::filesystem::create_directories(root_ / "env" / "bin");
  auto t = find_torch(root_ / "env", root_ / "usr");
  ASSERT_FALSE(t);
  EXPECT_THAT(t.error().message, HasSubstr((root_ / "env").string()));
  EXPECT_THAT(t.error().message,
              HasSubstr((root_ / "usr" / "include" / "ATen" / "ATen.h").string()));
  EXPECT_THAT(t.error().message, HasSubstr("KFORGE_PYENV"));
}

}  // namespace
}  // namespace kforge::core
