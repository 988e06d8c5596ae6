// `kforge hw`: the peaks live in the per-user cache, not in the working directory's state folder,
// so a second folder reads them without measuring; --remeasure measures again and prints every run
// and how far apart they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class HwCli : public CliScenario {
 protected:
  // A cache of this test's own (the shared test cache may already hold this machine's peaks).
  core::ProcessResult hw(std::vector<std::string> args, const std::filesystem::path& cwd) {
    args.insert(args.begin(), {kforge(), "hw"});
    auto e = env();
    e.push_back("KFORGE_CACHE_DIR=" + (dir_ / "cache").string());
    std::erase_if(e, [](const std::string& v) { return v.rfind("KFORGE_DIR=", 0) == 0; });
    std::filesystem::create_directories(cwd);
    return core::run_process(args, {.timeout = std::chrono::seconds(120), .cwd = cwd, .extra_env = e});
  }
};

TEST_F(HwCli, PeaksAreMeasuredOnceForEveryFolderAndRemeasuredOnRequest) {
  auto first = hw({"--remeasure", "--budget", "3", "--json"}, dir_ / "project-a");
  ASSERT_TRUE(first.success()) << first.err;
  auto a = nlohmann::json::parse(first.out);
  EXPECT_GT(a["peaks"]["fma_gflops_1"].get<double>(), 0);
  EXPECT_THAT(a["peaks"]["file"].get<std::string>(), HasSubstr((dir_ / "cache" / "peaks").string()));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "project-a" / ".kforge" / "hw.json"));

  auto second = hw({"--json"}, dir_ / "project-b");
  ASSERT_TRUE(second.success()) << second.err;
  auto b = nlohmann::json::parse(second.out);
  EXPECT_EQ(b["peaks"]["measured_at"], a["peaks"]["measured_at"]) << "a second folder measured again";
  EXPECT_EQ(b["peaks"]["fma_gflops_all"], a["peaks"]["fma_gflops_all"]);

  auto again = hw({"--remeasure", "--budget", "3"}, dir_ / "project-b");
  ASSERT_TRUE(again.success()) << again.err;
  EXPECT_THAT(again.out, HasSubstr("run 1: FMA"));
  EXPECT_THAT(again.out, HasSubstr("spread (max−min)/max"));
  EXPECT_THAT(again.out, HasSubstr("kept in"));
}

}  // namespace
}  // namespace kforge::modes
