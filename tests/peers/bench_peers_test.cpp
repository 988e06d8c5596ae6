// kforge bench --peers through the binary: one task at the ci size against two peers gives one
// row with a paired speedup and interval per peer, the fastest peer named, the summary against the
// fastest peer and against eager PyTorch, and the versions of the frameworks; a mistyped peer is a
// usage error before anything runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "kforge/core/paths.h"
#include "kforge/core/subprocess.h"
#include "kforge/eval/eval_test_util.h"

namespace kforge::eval {
namespace {

core::ProcessResult kforge(std::vector<std::string> args) {
  const char* bin = std::getenv("KFORGE_BIN_DIR");
  args.insert(args.begin(),
              (bin ? std::filesystem::path(bin) : core::executable_dir()).string() + "/kforge");
  auto state = test_state_dir("bench-peers");
  return core::run_process(
      args, {.timeout = std::chrono::seconds(600),
             .extra_env = {"KFORGE_DIR=" + state.string(),
                           "KFORGE_CACHE_DIR=" + test_user_cache().string(), "KFORGE_PROGRESS=0",
                           "KFORGE_PEAK_BUDGET_S=3", "KFORGE_QUIET_WAIT_S=0"}});
}

}  // namespace

TEST(BenchPeers, OneTableOfEveryPeerWithIntervalsAndTheFastest) {
  auto r = kforge({"bench", "--peers", "--peer-set", "torch,xla", "--tasks", "12p_rmsnorm",
                   "--impl", "expert", "--size", "ci", "--budget", "0.2", "--threads", "1",
                   "--retries", "0", "--json"});
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["schema"], "kforge.bench_peers/1");
  EXPECT_EQ(j["peers"], (nlohmann::json{"torch", "xla"}));
  EXPECT_FALSE(j["versions"]["torch"].get<std::string>().empty());
  EXPECT_FALSE(j["versions"]["jax"].get<std::string>().empty());
  ASSERT_EQ(j["tasks"].size(), 1u);
  const auto& row = j["tasks"][0];
  EXPECT_EQ(row["task"], "12p_rmsnorm");
  for (const char* peer : {"torch", "xla"}) {
    const auto& cell = row["peers"][peer];
    EXPECT_EQ(cell["verdict"], "correct") << peer << ": " << cell.dump();
    EXPECT_FALSE(cell["peer_failed"].get<bool>());
    // A busy cell gives no figure: its ratio is kept apart, under busy_speedup.
    const bool busy = cell["busy"].get<bool>();
    EXPECT_EQ(cell["speedup"].is_null(), busy) << cell.dump();
    const auto median = busy ? cell["busy_speedup"]["median"] : cell["speedup"];
    const auto ci = busy ? cell["busy_speedup"]["ci95"] : cell["speedup_ci95"];
    ASSERT_TRUE(median.is_number() && ci.is_array()) << cell.dump();
    EXPECT_LE(ci[0].get<double>(), median.get<double>());
    EXPECT_GE(ci[1].get<double>(), median.get<double>());
  }
  // Unless both cells were busy, the fastest peer is the one the expert gains least over.
  if (!row["fastest_peer"].is_null()) {
    const std::string fastest = row["fastest_peer"];
    for (const char* peer : {"torch", "xla"}) {
      if (!row["peers"][peer]["busy"].get<bool>()) {
        EXPECT_LE(row["speedup_over_fastest"].get<double>(),
                  row["peers"][peer]["speedup"].get<double>());
      }
    }
    EXPECT_TRUE(fastest == "torch" || fastest == "xla");
  }
  EXPECT_TRUE(j["summary"].contains("fast_1_vs_fastest_peer"));
  EXPECT_TRUE(j["summary"].contains("fast_1_vs_eager"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(BenchPeers, UnknownPeerIsAUsageError) {
  auto r = kforge({"bench", "--peers", "--peer-set", "torch,jaxx", "--tasks", "12p_rmsnorm"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("jaxx"), std::string::npos) << r.err;
  r = kforge({"bench", "--peers", "--peer-set", "none", "--tasks", "12p_rmsnorm"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at least one peer"), std::string::npos) << r.err;
  r = kforge({"auto", "12p_rmsnorm", "--report-peers", "xla,jaxx"});  // before any model is asked
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--report-peers: unknown peer 'jaxx'"), std::string::npos) << r.err;
}

}  // namespace kforge::eval
