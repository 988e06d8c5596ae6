// A Python environment kforge did not make (a user's venv on a GPU machine, named by KFORGE_PYENV):
// versions compare as releases, not as text ("2.11" is newer than "2.9"; "+cu130" is no part of
// it); what is missing or older than kforge's floors is named with the pip line that mends it;
// a prefix with only bin/python3 (such as /usr) is an environment too.
#include "kforge/core/python_needs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kforge::core {
namespace {

// The core layer's tests link GoogleTest without its matchers.
::testing::AssertionResult has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

TEST(CompareVersions, ReleasesNotText) {
  EXPECT_GT(compare_versions("2.11.0", "2.9"), 0);
  EXPECT_EQ(compare_versions("2.11.0+cu130", "2.11"), 0);
  EXPECT_LT(compare_versions("0.9.2", "0.10"), 0);
  EXPECT_EQ(compare_versions("2.0.0rc1", "2.0"), 0);
  EXPECT_LT(compare_versions("3.10.12", "3.11"), 0);
  EXPECT_GT(compare_versions("3.12.3", "3.11"), 0);
  EXPECT_LT(compare_versions("", "0.5"), 0);
}

// What the H200's environment held (torch 2.11.0+cu130, jax 0.11.2) meets every need.
PythonEnvInfo h200_like() {
  PythonEnvInfo info;
  info.dir = "/opt/torch/.venv";
  info.found = true;
  info.python_version = "3.12.3";
  info.numpy_version = "2.3.4";
  info.ml_dtypes_version = "0.5.3";
  info.jax_version = "0.11.2";
  info.torch_version = "2.11.0+cu130";
  return info;
}

TEST(PythonShortfalls, AnEnvironmentLikeTheH200sMeetsEveryNeed) {
  EXPECT_TRUE(python_shortfalls(h200_like()).empty());
}

TEST(PythonShortfalls, WhatIsMissingOrTooOldIsNamedWithItsMend) {
  auto info = h200_like();
  info.torch_version = "2.3.1";
  info.jax_version = "";
  info.jax_error = "ModuleNotFoundError(\"No module named 'jax'\")";
  auto s = python_shortfalls(info);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(has(s[0], "jax is missing (ModuleNotFoundError"));
  EXPECT_TRUE(has(s[0], "needed by the pallas target and the xla peer"));
  EXPECT_TRUE(has(s[0], "/opt/torch/.venv/bin/python -m pip install 'jax>=0.10'"));
  EXPECT_TRUE(has(s[1], "torch 2.3.1 is older than 2.11"));
  EXPECT_TRUE(has(s[1], "pip install 'torch>=2.11'"));

  info = h200_like();
  info.python_version = "3.10.12";
  s = python_shortfalls(info);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(has(s[0], "Python 3.10.12 is older than 3.11"));
}

TEST(PythonShortfalls, NoEnvironmentIsTheProblemsToSayNotAListOfMissingPackages) {
  PythonEnvInfo none;
  none.dir = "/nowhere";
  EXPECT_TRUE(python_shortfalls(none).empty());
}

// A prefix (/usr, a conda base) may have bin/python3 and no bin/python: its interpreter is that,
// and the probe's report is read from it.
TEST(PythonEnvProbe, APrefixWithOnlyPython3IsAnEnvironment) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kforge-prefix-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "bin");
  {
    std::ofstream py(dir / "bin" / "python3");
    py << "#!/bin/sh\necho '{\"python\": \"3.12.3\", \"numpy\": \"1.26.4\", \"ml_dtypes\": "
          "\"0.5.1\", \"jax\": \"0.11.2\", \"torch\": \"2.11.0\"}'\n";
  }
  std::filesystem::permissions(dir / "bin" / "python3", std::filesystem::perms::owner_all);
  EXPECT_EQ(python_executable(dir), dir / "bin" / "python3");
  auto info = probe_python_env(std::chrono::seconds(20), dir);
  ASSERT_TRUE(info.found) << info.problem;
  EXPECT_EQ(info.ml_dtypes_version, "0.5.1");
  auto s = python_shortfalls(info);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(has(s[0], "numpy 1.26.4 is older than 2.0"));
  EXPECT_TRUE(has(s[0], (dir / "bin" / "python3").string() + " -m pip install 'numpy>=2.0'"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kforge::core
