// bench --resume: options left at their defaults take the kept settings, the same values given
// again are fine, different ones are refused by name; a set of another command, another host or
// still being written is refused; the tasks left are the selection less the rows kept.
#include "kforge/cli/bench_resume.h"

#include <gmock/gmock.h>

#include "kforge/store/process_owner.h"

namespace kforge::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

BenchSettings defaults() {
  BenchSettings d;
  d.impl = "baseline";
  d.dtype = "f32";
  d.partner = "libtorch";
  d.budget = 2.0;
  return d;
}

BenchSettings kept() {
  BenchSettings k;
  k.suite = "/suite";
  k.tasks = {"b", "a"};
  k.impl = "expert";
  k.size = "ci";
  k.target = "cpp";
  k.dtype = "f32";
  k.partner = "libtorch";
  k.threads = 2;
  k.budget = 0.5;
  return k;
}

store::ResultSet set_of(const BenchSettings& s) {
  store::ResultSet set;
  set.id = 4;
  set.command = "bench";
  set.state = "interrupted";
  set.hostname = "box";
  set.settings = to_json(s).dump();
  return set;
}

TEST(BenchResume, DefaultsTakeTheKeptSettings) {
  auto s = settings_for_resume(defaults(), defaults(), set_of(kept()), "box");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->suite, "/suite");
  EXPECT_THAT(s->tasks, ElementsAre("a", "b"));
  EXPECT_EQ(s->impl, "expert");
  EXPECT_EQ(s->size, "ci");
  EXPECT_EQ(s->target, "cpp");
  EXPECT_EQ(s->threads, 2);
  EXPECT_EQ(s->budget, 0.5);
}

TEST(BenchResume, TheSameValuesGivenAgainAreFine) {
  BenchSettings given = kept();
  given.tasks = {"a", "b"};  // a selection compares as a set
  auto s = settings_for_resume(given, defaults(), set_of(kept()), "box");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->impl, "expert");
}

TEST(BenchResume, DifferentSettingsAreRefusedByName) {
  BenchSettings given = defaults();
  given.size = "cpu";
  given.threads = 1;
  given.partner = "torch";
  auto s = settings_for_resume(given, defaults(), set_of(kept()), "box");
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("--resume 4"));
  EXPECT_THAT(s.error().message, HasSubstr("--size cpu (the set was run with ci)"));
  EXPECT_THAT(s.error().message, HasSubstr("--threads 1 (the set was run with 2)"));
  EXPECT_THAT(s.error().message, HasSubstr("--partner torch (the set was run with libtorch)"));
  EXPECT_THAT(s.error().message, Not(HasSubstr("--impl")));
}

TEST(BenchResume, OtherCommandsHostsAndRunningSetsAreRefused) {
  auto eval = set_of(kept());
  eval.command = "eval";
  EXPECT_THAT(settings_for_resume(defaults(), defaults(), eval, "box").error().message,
              HasSubstr("not a bench"));
  EXPECT_THAT(settings_for_resume(defaults(), defaults(), set_of(kept()), "other").error().message,
              HasSubstr("measured on box, this is other"));
  auto with_peers = kept();
  with_peers.peers = {"libtorch", "torch"};
  EXPECT_THAT(
      settings_for_resume(defaults(), defaults(), set_of(with_peers), "box").error().message,
      HasSubstr("bench --peers table"));
  auto running = set_of(kept());
  running.state = "running";
  running.owner = store::current_process_owner();  // alive: this process
  EXPECT_THAT(settings_for_resume(defaults(), defaults(), running, "box").error().message,
              HasSubstr("still being written"));
}

TEST(BenchResume, TasksLeftAreTheSelectionLessTheRowsKept) {
  store::KeptResult row;
  row.task = "a";
  EXPECT_THAT(tasks_left(kept(), {"a", "b", "c"}, {row}), ElementsAre("b"));
  EXPECT_THAT(tasks_left(defaults(), {"a", "b", "c"}, {row}), ElementsAre("b", "c"));  // every task
  BenchSettings done = kept();
  done.tasks = {"a"};
  EXPECT_TRUE(tasks_left(done, {"a", "b"}, {row}).empty());
}

}  // namespace
}  // namespace kforge::cli
