// Task notes: task.toml's comments attributed to what they describe (the head, a size, an input,
// [check], [cost]), other sizes' comments left out, and generate.cpp's opening comment for tasks
// whose inputs it draws; every suite task with structured inputs has notes that say how; and no
// task's notes, at any size, carry a figure the machine measures (a time, a rate, a speedup).
#include "kforge/agents/task_notes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

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

namespace kforge::agents {
namespace {

// A time, a rate or a ratio against a partner: what a machine measures, true of one machine on one
// day (9p's notes said "baseline ~40-80 ms", 27 ms was measured). The requests carry the measured
// figures; the notes keep the algorithmic facts (FLOP counts, bytes, shapes, error bounds).
std::string measured_figure(const std::string& notes) {
  static const std::regex figure(
      R"((\d\s*(ms|us|ns|sec|seconds?)\b)|(\d\s*µs)|(\d\s*[GTM]?(FLOP/s|FLOPS|B/s)\b))"
      R"(|(\d\s*x\s+(faster|slower|the|libtorch|XLA|PyTorch)))",
      std::regex::icase);
  std::smatch m;
  if (!std::regex_search(notes, m, figure)) return "";
  const auto at = static_cast<std::size_t>(m.position(0));
  const auto from = notes.rfind('\n', at);
  const auto to = notes.find('\n', at);
  return notes.substr(from == std::string::npos ? 0 : from + 1,
                      to == std::string::npos ? std::string::npos : to - from - 1);
}

}  // namespace

TEST(TaskNotes, TheScanCatchesMeasuredFigures) {
  EXPECT_NE(measured_figure("sizes.cpu: 5.6 GFLOP: baseline ~40–80 ms on 2 cores"), "");
  EXPECT_NE(measured_figure("runs at ~8 GFLOP/s"), "");
  EXPECT_NE(measured_figure("a 30 GB/s stream"), "");
  EXPECT_NE(measured_figure("about 2.5x faster"), "");
  EXPECT_NE(measured_figure("12 µs per call"), "");
  EXPECT_EQ(measured_figure("5.6 GFLOP in three GEMMs, 44 MiB of weights, ~1e-6 error"), "");
}

TEST(TaskNotes, NoTaskCarriesAMeasuredFigure) {
  int scanned = 0;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench")) {
    auto spec = core::load_task(dir);
    ASSERT_TRUE(spec) << dir;
    for (const auto& size : spec->sizes) {
      ++scanned;
      EXPECT_EQ(measured_figure(task_notes(*spec, size.name)), "")
          << spec->id << " at " << size.name;
    }
  }
  EXPECT_GE(scanned, 100);
}

}  // namespace kforge::agents
