// Task lookup by id: an exact id, an unambiguous prefix, and for an unknown id an error that
// suggests the closest one ("rmsnorm" → "did you mean '12p_rmsnorm'?"). Where kforge finds its
// data and helpers: a release's share/kforge beside its bin/, the variables that override it.
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

// A release (scripts/release) is bin/ beside share/kforge: its kforge reads share/kforge wherever
// the tarball was unpacked; a build tree (no share/kforge beside bin/) reads the tree it was built
// from; KFORGE_SOURCE_DIR overrides both.
class SourceDirLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge-source-dir-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "release" / "bin");
    std::filesystem::create_directories(root_ / "release" / "share" / "kforge");
    std::filesystem::create_directories(root_ / "build" / "bin");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
  const std::filesystem::path built_from_ = "/src/of/the/build";
};

TEST_F(SourceDirLookup, AReleaseReadsTheShareBesideItsBin) {
  EXPECT_EQ(resolve_source_dir("", root_ / "release" / "bin", built_from_),
            root_ / "release" / "share" / "kforge");
}

TEST_F(SourceDirLookup, ABuildTreeReadsTheTreeItWasBuiltFrom) {
  EXPECT_EQ(resolve_source_dir("", root_ / "build" / "bin", built_from_), built_from_);
  // A share/ holding something else is not a release's.
  std::filesystem::create_directories(root_ / "build" / "share" / "other");
  EXPECT_EQ(resolve_source_dir("", root_ / "build" / "bin", built_from_), built_from_);
}

TEST_F(SourceDirLookup, TheVariableOverridesBoth) {
  EXPECT_EQ(resolve_source_dir("/elsewhere", root_ / "release" / "bin", built_from_),
            std::filesystem::path("/elsewhere"));
  EXPECT_EQ(resolve_source_dir("/elsewhere", root_ / "build" / "bin", built_from_),
            std::filesystem::path("/elsewhere"));
}

// This test binary lives in the build tree: with the variable unset it reads the source tree
// (the one holding bench/jaxbench), not a share/ folder.
TEST(SourceDir, ThisBuildReadsItsSourceTree) {
  const char* old = std::getenv("KFORGE_SOURCE_DIR");
  std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::unsetenv("KFORGE_SOURCE_DIR");
  auto dir = source_dir();
  if (saved) ::setenv("KFORGE_SOURCE_DIR", saved->c_str(), 1);
  EXPECT_TRUE(std::filesystem::exists(dir / "bench" / "jaxbench" / "12p_rmsnorm" / "task.toml"))
      << dir;
  EXPECT_NE(dir.filename(), "kforge") << dir;
}

// The helper programs: KFORGE_BIN_DIR, else the running executable's folder.
TEST(HelperDir, TheVariableElseTheExecutablesFolder) {
  const char* old = std::getenv("KFORGE_BIN_DIR");
  std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("KFORGE_BIN_DIR", "/opt/kforge/bin", 1);
  EXPECT_EQ(helper_dir(), std::filesystem::path("/opt/kforge/bin"));
  ::setenv("KFORGE_BIN_DIR", "", 1);
  EXPECT_EQ(helper_dir(), executable_dir());
  ::unsetenv("KFORGE_BIN_DIR");
  EXPECT_EQ(helper_dir(), executable_dir());
  if (saved) ::setenv("KFORGE_BIN_DIR", saved->c_str(), 1);
}

}  // namespace
}  // namespace kforge::core
