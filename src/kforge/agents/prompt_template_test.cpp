// Prompt templates: substitution, an unknown placeholder is an error naming it, and every shipped
// template renders with the variables the agents provide (a typo in a template fails here).
#include "kforge/agents/prompt_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/agents/knowledge_index.h"
#include "kforge/core/paths.h"

namespace kforge::agents {

using ::testing::HasSubstr;

TEST(PromptTemplate, Substitutes) {
  auto r = render_template("a {{x}} b {{y}}{{x}}", {{"x", "1"}, {"y", "2"}}, "t");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "a 1 b 21");
  EXPECT_THAT(render_template("{{nope}}", {}, "planner.txt").error().message,
              HasSubstr("planner.txt: the template uses {{nope}}"));
  EXPECT_THAT(render_template("{{open", {}, "t").error().message, HasSubstr("without"));
}

TEST(PromptTemplate, ShippedTemplatesRender) {
  PromptLibrary lib;
  PromptVars all = {{"machine", ""},       {"task", ""},         {"budget", ""},   {"standing", ""},
                    {"history", ""},       {"strategy", ""},     {"playbook", ""}, {"plan", ""},
                    {"current", ""},       {"instruction", ""},  {"source", ""},   {"failure", ""},
                    {"attempts", ""},      {"measurements", ""}, {"tuning", ""},   {"hotspots", ""},
                    {"vectorization", ""}, {"partner", ""}};
  for (const char* name : {"system", "planner", "coder", "debugger", "profiler"}) {
    auto r = lib.render(name, all);
    EXPECT_TRUE(r.ok()) << name << ": " << r.error().message;
  }
}

TEST(KnowledgeIndex, FindsTheRelevantSections) {
  auto k = KnowledgeIndex::open(core::source_dir() / "knowledge");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_GT(k->size(), 20u);
  auto hits = k->select({"attention", "softmax"}, "online softmax for attention over keys", 3);
  ASSERT_FALSE(hits.empty());
  bool softmax = false;
  for (const auto& h : hits)
    softmax = softmax || h.file == "softmax.md" || h.file == "flash_attention.md";
  EXPECT_TRUE(softmax);
  auto gemm = k->select({"gemm"}, "gemm register tile packing blocking", 2);
  ASSERT_FALSE(gemm.empty());
  EXPECT_EQ(gemm.front().file, "gemm_blocking.md");
  // FTS5 operators in the text are not interpreted: only its words are searched.
  EXPECT_FALSE(k->select({"gemm"}, "\"gemm\" NEAR( OR \"); DROP TABLE sections; --", 2).empty());
}

}  // namespace kforge::agents
