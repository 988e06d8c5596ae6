#pragma once
// Test helper: a fresh database path per test, removed afterwards.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace kforge::store {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("kforge-store-" + std::string(info ? info->name() : "test") + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::store
