// A run marked running whose process is gone shows as interrupted; one owned by a live process
// (this one) stays running; a pid reused by another process is not mistaken for the owner.
#include "kforge/store/process_owner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kforge/store/runs.h"
#include "kforge/store/sessions.h"
#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::store {
namespace {

std::string owner_of_a_dead_process() {
  int p[2];
  EXPECT_EQ(pipe(p), 0);
  pid_t child = fork();
  if (child == 0) {
    std::string me = current_process_owner();
    if (write(p[1], me.data(), me.size()) < 0) _exit(1);
    _exit(0);
  }
  close(p[1]);
  char buf[512] = {};
  EXPECT_GT(read(p[0], buf, sizeof buf - 1), 0);
  close(p[0]);
  waitpid(child, nullptr, 0);
  return buf;
}

TEST(ProcessOwner, ThisProcessIsAlive) { EXPECT_TRUE(owner_alive(current_process_owner())); }

TEST(ProcessOwner, AnExitedProcessIsNot) { EXPECT_FALSE(owner_alive(owner_of_a_dead_process())); }

TEST(ProcessOwner, AReusedPidWithAnotherStartTimeIsNot) {
  std::string me = current_process_owner();
  me = me.substr(0, me.rfind('|')) + "|1";  // this pid, started at another time
  EXPECT_FALSE(owner_alive(me));
}

TEST(ProcessOwner, RunningRunsOfDeadProcessesAreInterrupted) {
  RunRecord r;
  r.state = RunState::running;
  r.owner = owner_of_a_dead_process();
  EXPECT_EQ(effective_state(r), RunState::interrupted);
  r.owner = current_process_owner();
  EXPECT_EQ(effective_state(r), RunState::running);
  r.owner = owner_of_a_dead_process();
  r.state = RunState::finished;
  EXPECT_EQ(effective_state(r), RunState::finished);
  r.state = RunState::running;
  r.owner.clear();  // written before owners were recorded: cannot tell
  EXPECT_EQ(effective_state(r), RunState::running);
}

TEST(ProcessOwner, TheStoreRecordsTheOwnerOfARun) {
  TempDir dir;
  auto db = open_store(dir.path() / "kforge.db");
  ASSERT_TRUE(db.ok()) << db.error().message;
  ASSERT_TRUE(insert_session(**db, {"dead", now_iso8601(), "kforge auto", "/"}).ok());
  ASSERT_TRUE(insert_session(**db, {"live", now_iso8601(), "kforge auto", "/"}).ok());
  RunRecord dead{.id = "dead", .mode = "auto", .task = "12p_rmsnorm", .size = "ci"};
  dead.owner = owner_of_a_dead_process();
  ASSERT_TRUE(insert_run(**db, dead).ok());
  RunRecord live{.id = "live", .mode = "auto", .task = "12p_rmsnorm", .size = "ci"};
  ASSERT_TRUE(insert_run(**db, live).ok());  // owned by this process
  auto found = find_run(**db, "dead");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ(effective_state(**found), RunState::interrupted);
  found = find_run(**db, "live");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ(effective_state(**found), RunState::running);
}

}  // namespace
}  // namespace kforge::store
