// The pallas target's agent material (prompts/pallas/, knowledge/pallas/, strategies/pallas.toml)
// fits the agents and the suite as the C++ material does: each prompt uses exactly the
// placeholders of its prompts/ twin (the roles fill the same variables whatever the target), the
// system prompt says that interpret-mode times are not performance, every playbook section and
// strategy is tagged with real task tags, and every task of the suite gets sections and
// strategies about what it computes and none about another kind of computation (no flash
// attention for a norm, no MXU tiles for a reduction).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "kforge/agents/knowledge_index.h"
#include "kforge/agents/prompt_template.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/modes/strategy_catalogue.h"

namespace kforge::modes {
namespace {

const std::filesystem::path kRoot = core::source_dir();

std::set<std::string> placeholders(const std::filesystem::path& file) {
  auto text = core::read_text(file);
  EXPECT_TRUE(text) << file;
  std::set<std::string> out;
  if (!text) return out;
  static const std::regex pattern(R"(\{\{(\w+)\}\})");
  for (std::sregex_iterator it(text->begin(), text->end(), pattern), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

std::vector<core::TaskSpec> suite() {
  std::vector<core::TaskSpec> out;
  for (const auto& dir : core::list_task_dirs(kRoot / "bench" / "jaxbench")) {
    auto spec = core::load_task(dir);
    EXPECT_TRUE(spec) << dir;
    if (spec) out.push_back(std::move(*spec));
  }
  return out;
}

std::set<std::string> suite_tags() {
  std::set<std::string> tags = {"any"};
  for (const auto& t : suite()) tags.insert(t.tags.begin(), t.tags.end());
  return tags;
}

bool shares(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) {
    return std::find(b.begin(), b.end(), x) != b.end();
  });
}

TEST(PallasMaterial, PromptsUseTheirTwinsPlaceholders) {
  for (const char* name : {"system", "planner", "coder", "debugger", "profiler"}) {
    SCOPED_TRACE(name);
    const std::string file = std::string(name) + ".txt";
    EXPECT_EQ(placeholders(kRoot / "prompts" / "pallas" / file),
              placeholders(kRoot / "prompts" / file));
    agents::PromptLibrary lib(kRoot / "prompts" / "pallas");
    agents::PromptVars vars;
    for (const auto& p : placeholders(kRoot / "prompts" / file)) vars[p] = "<" + p + ">";
    auto r = lib.render(name, vars);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_NE(r->find("Pallas"), std::string::npos);  // the target's own text, not the fallback
  }
}

TEST(PallasMaterial, PromptsSayInterpretTimesAreNotPerformance) {
  auto system = core::read_text(kRoot / "prompts" / "pallas" / "system.txt");
  ASSERT_TRUE(system);
  EXPECT_NE(system->find("interpret mode"), std::string::npos);
  EXPECT_NE(system->find("not performance figures"), std::string::npos);
  for (const char* name : {"planner.txt", "profiler.txt"}) {
    auto text = core::read_text(kRoot / "prompts" / "pallas" / name);
    ASSERT_TRUE(text);
    EXPECT_NE(text->find("interpret-mode times"), std::string::npos) << name;
  }
  // The kernel is Python: the coder and debugger ask for a ```python block.
  for (const char* name : {"coder.txt", "debugger.txt"}) {
    auto text = core::read_text(kRoot / "prompts" / "pallas" / name);
    ASSERT_TRUE(text);
    EXPECT_NE(text->find("```python"), std::string::npos) << name;
    EXPECT_EQ(text->find("```cpp"), std::string::npos) << name;
  }
}

TEST(PallasMaterial, PlaybookSectionsAreTaggedWithTaskTags) {
  auto playbook = agents::KnowledgeIndex::open(kRoot / "knowledge" / "pallas");
  ASSERT_TRUE(playbook) << playbook.error().message;
  EXPECT_GE(playbook->size(), 25u);
  auto known = suite_tags();
  for (const auto& s : playbook->sections()) {
    EXPECT_FALSE(s.tags.empty()) << s.file << ": " << s.heading;
    for (const auto& t : s.tags) EXPECT_TRUE(known.count(t)) << s.file << ": unknown tag " << t;
  }
}

TEST(PallasMaterial, EverySuiteTaskGetsSectionsAboutWhatItComputes) {
  auto playbook = agents::KnowledgeIndex::open(kRoot / "knowledge" / "pallas");
  ASSERT_TRUE(playbook) << playbook.error().message;
  auto tasks = suite();
  ASSERT_EQ(tasks.size(), 50u);
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.id);
    auto sections = playbook->select(t.tags, t.title + " attention softmax gemm blocking vmem", 4);
    ASSERT_FALSE(sections.empty());
    EXPECT_TRUE(sections[0].shares_a_tag(t.tags))
        << sections[0].file << ": " << sections[0].heading;
    for (const auto& s : sections) {
      EXPECT_TRUE(s.shares_a_tag(t.tags) || s.for_any_task()) << s.file << ": " << s.heading;
      // Flash attention is for attention; a logsumexp or cross-entropy may get the long-row
      // online softmax, nothing else of that file.
      if (!shares(t.tags, {"attention"})) {
        EXPECT_TRUE(s.file != "online_softmax.md" ||
                    s.heading.find("long row") != std::string::npos)
            << s.heading;
      }
      if (!shares(t.tags, {"conv"})) {
        EXPECT_NE(s.file, "conv.md");
      }
    }
  }
}

TEST(PallasMaterial, EverySuiteTaskGetsStrategiesForWhatItComputes) {
  auto catalogue = load_strategies(kRoot / "strategies" / "pallas.toml");
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  auto known = suite_tags();
  for (const auto& s : *catalogue) {
    EXPECT_FALSE(s.tags.empty()) << s.id;
    for (const auto& t : s.tags) EXPECT_TRUE(known.count(t)) << s.id << ": unknown tag " << t;
  }
  const std::vector<std::string> matmul_like = {
      "gemm",    "conv", "attention", "linear-attention", "einsum",
      "batched", "ssm",  "moe",       "grouped"};
  for (const auto& t : suite()) {
    SCOPED_TRACE(t.id);
    auto offered = strategies_for(*catalogue, t.tags);
    EXPECT_TRUE(std::any_of(offered.begin(), offered.end(),
                            [&](const Strategy& s) { return shares(s.tags, t.tags); }));
    for (const auto& s : offered) {
      if (!shares(t.tags, matmul_like)) {
        EXPECT_NE(s.id, "mxu_tiles");
      }
      if (!shares(t.tags, {"softmax", "attention"})) {
        EXPECT_NE(s.id, "online_softmax");
      }
    }
  }
}

}  // namespace
}  // namespace kforge::modes
