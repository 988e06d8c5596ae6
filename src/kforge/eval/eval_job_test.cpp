// A cluster job's files: the options a node gets survive the trip, the spec key changes with
// what is evaluated, and the sealed seeds are private and gone once read.
#include "kforge/eval/eval_job.h"

#include <gmock/gmock.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kforge::eval {
namespace {

namespace fs = std::filesystem;

TEST(EvalJob, OptionsSurviveTheTrip) {
  EvalOptions o;
  o.threads = 3;
  o.time = false;
  o.partner = EvalOptions::Partner::reference;
  o.against_source = "src";
  o.against_name = "b.cpp";
  o.against_role = toolchain::Role::expert;
  o.role = toolchain::Role::baseline;
  o.allow_libs = {"libfoo.so"};
  o.extra_flags = {"-DTILE=8"};
  o.check_sets = 2;
  o.time_budget_s = 0.5;
  o.max_pairs = 77;
  o.profile_seconds = 1;
  auto back = options_from_json(nlohmann::json::parse(options_to_json(o).dump()));
  EXPECT_EQ(back.threads, 3);
  EXPECT_FALSE(back.time);
  EXPECT_EQ(back.partner, EvalOptions::Partner::reference);
  EXPECT_EQ(back.against_source, "src");
  EXPECT_EQ(back.against_role, toolchain::Role::expert);
  EXPECT_EQ(back.role, toolchain::Role::baseline);
  EXPECT_EQ(back.allow_libs, o.allow_libs);
  EXPECT_EQ(back.extra_flags, o.extra_flags);
  EXPECT_EQ(back.check_sets, 2);
  EXPECT_DOUBLE_EQ(back.time_budget_s, 0.5);
  EXPECT_EQ(back.max_pairs, 77);
  EXPECT_DOUBLE_EQ(back.profile_seconds, 1);
  EXPECT_TRUE(back.check_seeds.empty()) << "seeds never travel in the spec";
}

TEST(EvalJob, KeyChangesWithTheWork) {
  EvalJobSpec a{"t", "ci", "int x;", "k.cpp", options_to_json(EvalOptions{})};
  EvalJobSpec b = a;
  EXPECT_EQ(a.key(), b.key());
  b.source = "int y;";
  EXPECT_NE(a.key(), b.key());
  EvalOptions slower;
  slower.time_budget_s = 9;
  EvalJobSpec c = a;
  c.options = options_to_json(slower);
  EXPECT_NE(a.key(), c.key());
}

TEST(EvalJob, SealedSeedsArePrivateAndReadOnce) {
  auto dir = fs::temp_directory_path() / ("kforge-seeds-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ASSERT_TRUE(write_seeds(dir / "seeds", {1, 18446744073709551615ull, 42}).ok());
  struct stat st {};
  ASSERT_EQ(::stat((dir / "seeds").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto seeds = take_seeds(dir / "seeds");
  ASSERT_TRUE(seeds.ok()) << seeds.error().message;
  EXPECT_EQ(*seeds, (std::vector<std::uint64_t>{1, 18446744073709551615ull, 42}));
  EXPECT_FALSE(fs::exists(dir / "seeds"));
  auto again = take_seeds(dir / "seeds");
  EXPECT_FALSE(again.ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kforge::eval
