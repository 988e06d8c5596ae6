// Task lookup by id: an exact id, an unambiguous prefix, and for an unknown id an error that
// suggests the closest one ("rmsnorm" → "did you mean '12p_rmsnorm'?").
#include "kforge/core/paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kforge::core {
namespace {

class FindTaskDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("kforge-paths-" + std::to_string(::getpid()));
    for (const char* id : {"8p_gemm", "12p_rmsnorm", "13p_layernorm"}) {
      std::filesystem::create_directories(root_ / "bench" / "jaxbench" / id);
      std::ofstream(root_ / "bench" / "jaxbench" / id / "task.toml") << "id = \"" << id << "\"\n";
    }
    const char* old = std::getenv("KFORGE_SOURCE_DIR");
    old_ = old ? std::optional<std::string>(old) : std::nullopt;
    ::setenv("KFORGE_SOURCE_DIR", root_.c_str(), 1);
    // A bench/jaxbench in the working directory would take precedence over the source tree's.
    if (default_suite_dir() != root_ / "bench" / "jaxbench")
      GTEST_SKIP() << "the working directory has its own bench/jaxbench";
  }
  void TearDown() override {
    if (old_)
      ::setenv("KFORGE_SOURCE_DIR", old_->c_str(), 1);
    else
      ::unsetenv("KFORGE_SOURCE_DIR");
    std::filesystem::remove_all(root_);
  }

  std::filesystem::path root_;
  std::optional<std::string> old_;
};

TEST_F(FindTaskDir, ExactIdAndPrefix) {
  auto exact = find_task_dir("12p_rmsnorm");
  ASSERT_TRUE(exact) << exact.error().message;
  EXPECT_EQ(exact->filename().string(), "12p_rmsnorm");
  auto prefix = find_task_dir("8p");
  ASSERT_TRUE(prefix) << prefix.error().message;
  EXPECT_EQ(prefix->filename().string(), "8p_gemm");
}

TEST_F(FindTaskDir, UnknownIdSuggestsTheClosest) {
  auto r = find_task_dir("rmsnorm");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("task 'rmsnorm' not found"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("did you mean '12p_rmsnorm'?"), std::string::npos)
      << r.error().message;
  auto typo = find_task_dir("8p_gemn");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("did you mean '8p_gemm'?"), std::string::npos)
      << typo.error().message;
  auto far = find_task_dir("zzz_unrelated");
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().message.find("did you mean"), std::string::npos) << far.error().message;
}

// The per-user cache: KFORGE_CACHE_DIR wins, then an absolute XDG_CACHE_HOME, then ~/.cache;
// never the working directory, so every project shares compiled artifacts and measured peaks.
class UserCacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KFORGE_CACHE_DIR", "XDG_CACHE_HOME", "HOME"})
      if (const char* v = std::getenv(name))
        saved_.emplace_back(name, v);
      else
        saved_.emplace_back(name, std::nullopt);
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_)
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(UserCacheDir, OverrideThenXdgThenHome) {
  ::setenv("HOME", "/home/someone", 1);
  ::unsetenv("KFORGE_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(user_cache_dir(), std::filesystem::path("/home/someone/.cache/kforge"));
  ::setenv("XDG_CACHE_HOME", "relative/ignored", 1);
  EXPECT_EQ(user_cache_dir(), std::filesystem::path("/home/someone/.cache/kforge"));
  ::setenv("XDG_CACHE_HOME", "/var/cache/someone", 1);
  EXPECT_EQ(user_cache_dir(), std::filesystem::path("/var/cache/someone/kforge"));
  ::setenv("KFORGE_CACHE_DIR", "/tmp/kforge-test-cache", 1);
  EXPECT_EQ(user_cache_dir(), std::filesystem::path("/tmp/kforge-test-cache"));
  EXPECT_NE(user_cache_dir().parent_path(), state_dir().parent_path());
}

}  // namespace
}  // namespace kforge::core
