// The settings layer reads every variable it documents, turns a malformed number into an error
// that names the variable, and falls back as documented (VISUAL, then EDITOR, then vi).
#include "kforge/cli/settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "kforge/cli/errors.h"

namespace kforge::cli {
namespace {

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    if (auto it = vars.find(name); it != vars.end()) return it->second;
    return std::nullopt;
  };
}

TEST(Settings, DefaultsWhenNothingIsSet) {
  const Settings s = read_settings(env({}));
  EXPECT_EQ(s.cxx, "");
  EXPECT_TRUE(s.toolchain_dirs.empty());
  EXPECT_EQ(s.lock_wait_s, 600);
  EXPECT_EQ(s.peak_budget_s, 30);
  EXPECT_TRUE(s.progress);
  EXPECT_EQ(s.editor, "vi");
}

// A Slurm job gets the driver's kforge settings and nothing else: not its API keys, not the rest
// of its environment. KFORGE_BIN_DIR among them: the job runs the driver's binary, whose runner
// may not be beside it (a sanitizer tree's instrumented kforge beside a plain runner).
TEST(Settings, ASlurmJobGetsOnlyTheKforgeSettings) {
  const Settings s = read_settings(env({{"KFORGE_CXX", "/opt/gcc/bin/g++"},
                                        {"KFORGE_BIN_DIR", "/srv/kforge/mixed-bin"},
                                        {"KFORGE_QUIET_WAIT_S", "0"},
                                        {"OPENAI_API_KEY", "sk-secret"},
                                        {"EDITOR", "nano"}}));
  EXPECT_THAT(s.node_env, ::testing::UnorderedElementsAre("KFORGE_CXX=/opt/gcc/bin/g++",
                                                          "KFORGE_BIN_DIR=/srv/kforge/mixed-bin",
                                                          "KFORGE_QUIET_WAIT_S=0"));
}

TEST(Settings, ReadsEveryVariable) {
  const Settings s = read_settings(env({{"KFORGE_CXX", "/opt/gcc/bin/g++"},
                                        {"KFORGE_TOOLCHAIN_DIRS", "/opt/gcc::/opt/binutils:"},
                                        {"KFORGE_LOCK_WAIT_S", "12.5"},
                                        {"KFORGE_PEAK_BUDGET_S", "3"},
                                        {"KFORGE_PROGRESS", "0"},
                                        {"KFORGE_COLOR", "never"},
                                        {"NO_COLOR", "1"},
                                        {"EDITOR", "nano"}}));
  EXPECT_EQ(s.cxx, "/opt/gcc/bin/g++");
  EXPECT_THAT(s.toolchain_dirs, ::testing::ElementsAre("/opt/gcc", "/opt/binutils"));
  EXPECT_EQ(s.lock_wait_s, 12.5);
  EXPECT_EQ(s.peak_budget_s, 3);
  EXPECT_FALSE(s.progress);
  EXPECT_EQ(s.colour, "never");
  EXPECT_EQ(s.no_color, "1");
  EXPECT_EQ(s.editor, "nano");
  EXPECT_EQ(read_settings(env({{"VISUAL", "code -w"}, {"EDITOR", "nano"}})).editor, "code -w");
  EXPECT_TRUE(read_settings(env({{"KFORGE_PROGRESS", ""}})).progress);  // empty: the default
}

TEST(Settings, AMalformedNumberNamesItsVariable) {
  for (const char* name : {"KFORGE_LOCK_WAIT_S", "KFORGE_PEAK_BUDGET_S"})
    for (const char* bad : {"ten", "5s", "-1"}) {
      try {
        (void)read_settings(env({{name, bad}}));
        ADD_FAILURE() << name << "=" << bad << " was taken";
      } catch (const UsageError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr(name));
        EXPECT_THAT(e.what(), ::testing::HasSubstr(bad));
      }
    }
}

// The cuda target's toolkit and architecture; an architecture nvcc would not take is refused
// before anything is compiled, naming the variable.
TEST(Settings, TheCudaToolkitAndArchitecture) {
  auto s =
      read_settings(env({{"KFORGE_CUDA_HOME", "/opt/cuda-13"}, {"KFORGE_CUDA_ARCH", "sm_80"}}));
  EXPECT_EQ(s.cuda_home, "/opt/cuda-13");
  EXPECT_EQ(s.cuda_arch, "sm_80");
  EXPECT_TRUE(read_settings(env({})).cuda_arch.empty());
  try {
    (void)read_settings(env({{"KFORGE_CUDA_ARCH", "hopper"}}));
    ADD_FAILURE() << "KFORGE_CUDA_ARCH=hopper was taken";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("KFORGE_CUDA_ARCH"));
  }
}

}  // namespace
}  // namespace kforge::cli
