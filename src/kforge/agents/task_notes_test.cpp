// Task notes: task.toml's comments attributed to what they describe (the head, a size, an input,
// [check], [cost]), other sizes' comments left out, and generate.cpp's opening comment for tasks
// whose inputs it draws; every suite task with structured inputs has notes that say how.
#include "kforge/agents/task_notes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"

namespace kforge::agents {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TaskNotes, CommentsByWhatTheyDescribe) {
  auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "13p_cross_entropy");
  ASSERT_TRUE(spec) << spec.error().message;
  std::string notes = task_notes(*spec, "cpu");
  EXPECT_THAT(notes, HasSubstr("Ported from JAXBench 13p_Cross_Entropy"));
  EXPECT_THAT(notes, HasSubstr("sizes.cpu: 8.4 GFLOP"));
  EXPECT_THAT(notes, Not(HasSubstr("deliberately not multiples")));  // the ci size's
  EXPECT_THAT(notes, HasSubstr("input labels: uniform in [0, V): generate.cpp"));
  EXPECT_THAT(notes, HasSubstr("check: A loss is log(V)"));
  EXPECT_THAT(notes, HasSubstr("cost: JAXBench's count: the projection (2·T·H·V) plus softmax and "
                               "loss (3·T·V); read hidden,\nthe weight"));
  EXPECT_THAT(notes, HasSubstr("generate.cpp (draws the structured inputs): "));
  EXPECT_THAT(task_notes(*spec, "ci"), HasSubstr("sizes.ci: deliberately not multiples"));
}

TEST(TaskNotes, EveryTaskWithStructuredInputsSaysHow) {
  int structured = 0;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench")) {
    auto spec = core::load_task(dir);
    ASSERT_TRUE(spec) << dir;
    bool custom =
        std::any_of(spec->inputs.begin(), spec->inputs.end(),
                    [](const core::TensorSpec& t) { return t.init.dist == core::Dist::custom; });
    if (!custom) continue;
    ++structured;
    std::string notes = task_notes(*spec, spec->default_size);
    EXPECT_THAT(notes, HasSubstr("generate.cpp (draws the structured inputs): ")) << spec->id;
  }
  EXPECT_GE(structured, 6);
}

}  // namespace kforge::agents
