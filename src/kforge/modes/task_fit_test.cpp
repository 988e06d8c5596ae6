// What a task computes decides what it is offered: for every task of the suite (all 50), the
// playbook sections the planner gets and the strategies a search tries. Each task gets at least
// one section and one strategy about its own tags, and none about another kind of computation:
// no flash attention or paged KV caches for a task that is not attention (a cross-entropy once got
// both), no GEMM micro-kernels, packing or register tiles for a norm (RMSNorm once got them).
#include <gtest/gtest.h>

#include <algorithm>

#include "kforge/agents/knowledge_index.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/modes/strategy_catalogue.h"
#include "kforge/modes/task_features.h"

namespace kforge::modes {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool shares(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return has(b, x); });
}

std::vector<core::TaskSpec> suite() {
  std::vector<core::TaskSpec> out;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench")) {
    auto spec = core::load_task(dir);
    EXPECT_TRUE(spec) << dir << ": " << spec.error().message;
    if (spec) out.push_back(std::move(*spec));
  }
  return out;
}

}  // namespace

TEST(TaskFit, EveryShippedSectionAndStrategyIsTagged) {
  auto playbook = agents::KnowledgeIndex::open(core::source_dir() / "knowledge");
  ASSERT_TRUE(playbook) << playbook.error().message;
  for (const auto& s : playbook->sections())
    EXPECT_FALSE(s.tags.empty()) << s.file << ": " << s.heading;
  auto catalogue = load_strategies(default_strategies_file());
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  for (const auto& s : *catalogue) EXPECT_FALSE(s.tags.empty()) << s.id;
}

TEST(TaskFit, EverySuiteTaskGetsSectionsAboutWhatItComputes) {
  auto playbook = agents::KnowledgeIndex::open(core::source_dir() / "knowledge");
  ASSERT_TRUE(playbook) << playbook.error().message;
  auto tasks = suite();
  ASSERT_EQ(tasks.size(), 50u);
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.id);
    // The planner's query: the title and tags, a strategy, a diagnosis mentioning other kinds of
    // work.
    std::string query = t.title + " attention softmax gemm blocking prefetch vectorize";
    auto sections = playbook->select(t.tags, query, 3);
    ASSERT_FALSE(sections.empty());
    EXPECT_TRUE(sections[0].shares_a_tag(t.tags)) << sections[0].heading;
    for (const auto& s : sections) {
      EXPECT_TRUE(s.shares_a_tag(t.tags) || s.for_any_task()) << s.file << ": " << s.heading;
      if (!has(t.tags, "attention")) {
        EXPECT_NE(s.file, "flash_attention.md") << s.heading;
      }
    }
  }
}

TEST(TaskFit, EverySuiteTaskGetsStrategiesForWhatItComputes) {
  auto catalogue = load_strategies(default_strategies_file());
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  auto tasks = suite();
  ASSERT_EQ(tasks.size(), 50u);
  const std::vector<std::string> matmul_like = {
      "gemm",    "conv", "attention", "linear-attention", "einsum",
      "batched", "ssm",  "moe",       "grouped"};
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.id);
    auto offered = strategies_for(*catalogue, t.tags);
    EXPECT_TRUE(std::any_of(offered.begin(), offered.end(),
                            [&](const Strategy& s) { return shares(s.tags, t.tags); }));
    for (const auto& s : offered) {
      EXPECT_TRUE(shares(s.tags, t.tags) || has(s.tags, "any")) << s.id;
      if (!shares(t.tags, matmul_like)) {
        EXPECT_NE(s.id, "register_tiling");
        EXPECT_NE(s.id, "packing");
        EXPECT_NE(s.id, "small_gemm_microkernels");
      }
      if (!has(t.tags, "softmax") && !has(t.tags, "attention")) {
        EXPECT_NE(s.id, "online_softmax");
      }
    }
  }
}

// The two cases that were seen going wrong.
TEST(TaskFit, CrossEntropyAndRmsNorm) {
  auto playbook = agents::KnowledgeIndex::open(core::source_dir() / "knowledge");
  ASSERT_TRUE(playbook);
  auto ce = core::load_task(core::source_dir() / "bench" / "jaxbench" / "13p_cross_entropy");
  ASSERT_TRUE(ce);
  for (const auto& s : playbook->select(ce->tags, ce->title + " online softmax paged attention", 3))
    EXPECT_NE(s.file, "flash_attention.md");
  auto catalogue = load_strategies(default_strategies_file());
  ASSERT_TRUE(catalogue);
  auto rms = core::load_task(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm");
  ASSERT_TRUE(rms);
  auto offered = strategies_for(*catalogue, rms->tags);
  for (const auto& s : offered) EXPECT_NE(s.id, "register_tiling");
  EXPECT_TRUE(std::any_of(offered.begin(), offered.end(),
                          [](const Strategy& s) { return s.id == "reduce_passes"; }));
}

}  // namespace kforge::modes

namespace kforge::modes {
namespace {

core::TaskSpec suite_task(const std::string& id) {
  auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / id);
  EXPECT_TRUE(spec) << id;
  return spec ? std::move(*spec) : core::TaskSpec{};
}

std::vector<std::string> ids(const std::vector<Strategy>& offered) {
  std::vector<std::string> out;
  for (const auto& s : offered) out.push_back(s.id);
  return out;
}

}  // namespace

// Strategies whose preconditions a task does not meet were offered in a search of 14p_ragged_dot
// (a uniform batched GEMM tagged moe and batched): KV-head sharing, skipping masked work where its
// notes say every group is full, and scratch kept across calls, which the rules forbid. Each now
// goes only where its preconditions hold: 2p_gqa_attention (causal, 16 query heads per KV head,
// though not tagged gqa) gets both.
TEST(TaskFit, StrategiesNeedTheirPreconditionsInTheTask) {
  auto catalogue = load_strategies(default_strategies_file());
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  const auto dense = suite_task("14p_ragged_dot");
  const auto gqa = suite_task("2p_gqa_attention");
  const auto dense_features = task_features(dense);
  EXPECT_FALSE(has(dense_features, kMaskedWork));
  EXPECT_FALSE(has(dense_features, kSharedKvHeads));
  const auto for_dense = ids(strategies_for(*catalogue, dense_features));
  EXPECT_FALSE(has(for_dense, "gqa_kv_sharing"));
  EXPECT_FALSE(has(for_dense, "skip_masked_work"));
  EXPECT_TRUE(has(for_dense, "register_tiling"));
  EXPECT_TRUE(has(for_dense, "packing"));
  const auto left_out = strategies_left_out(*catalogue, dense_features);
  EXPECT_TRUE(has(left_out, "skip_masked_work: needs masked-work, which the task does not have"))
      << ::testing::PrintToString(left_out);

  const auto gqa_features = task_features(gqa);
  EXPECT_TRUE(has(gqa_features, kMaskedWork));
  EXPECT_TRUE(has(gqa_features, kSharedKvHeads));
  const auto for_gqa = ids(strategies_for(*catalogue, gqa_features));
  EXPECT_TRUE(has(for_gqa, "gqa_kv_sharing"));
  EXPECT_TRUE(has(for_gqa, "skip_masked_work"));

  // No shipped strategy (cpu, cuda, pallas) keeps state for the next call; one that does, from a
  // user's file, is never offered, to any task.
  for (const char* file : {"cpu.toml", "cuda.toml", "pallas.toml"}) {
    auto shipped = load_strategies(core::source_dir() / "strategies" / file);
    ASSERT_TRUE(shipped) << file;
    for (const auto& s : *shipped) EXPECT_FALSE(keeps_state_across_calls(s.text)) << s.id;
  }
  Strategy reuse{"memory_reuse",
                 "memory",
                 "Memory reuse: allocate scratch buffers once (aligned, sized for the task) and "
                 "reuse them across calls; avoid page faults from fresh allocations in the hot "
                 "path.",
                 {"any"}};
  EXPECT_EQ(reuse.why_not(gqa_features), "keeps state across calls, which the rules forbid");
  EXPECT_TRUE(strategies_for({reuse}, dense_features).empty());
}

}  // namespace kforge::modes
