// Tunable declarations: parsing with line-numbered errors, the grid or a seeded sample, and the
// source with the chosen values written in.
#include "kforge/agents/tunables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::agents {

using ::testing::HasSubstr;

const char* kSource = R"(#include "kforge_task.h"
// kforge:tune TILE = {4, 8, 16}
#ifndef TILE
#define TILE 8
#endif
// kforge:tune UNROLL = {1, 2}
#ifndef UNROLL
#define UNROLL 1
#endif
)";

TEST(Tunables, Parse) {
  auto t = parse_tunables(kSource);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].name, "TILE");
  EXPECT_EQ((*t)[0].values, (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_EQ((*t)[1].line, 6);
  // The guard's value is the setting every variant is compared against.
  EXPECT_EQ((*t)[0].default_value, "8");
  EXPECT_EQ(default_config(*t), (TuneConfig{{"TILE", "8"}, {"UNROLL", "1"}}));
}

TEST(Tunables, ErrorsNameTheLine) {
  EXPECT_THAT(parse_tunables("// kforge:tune TILE = 4, 8\n").error().message, HasSubstr("line 1: malformed"));
  EXPECT_THAT(parse_tunables("// kforge:tune TILE = {4}\n").error().message, HasSubstr("no `#ifndef TILE"));
  EXPECT_THAT(parse_tunables("// kforge:tune A = {}\n#ifndef A\n").error().message, HasSubstr("lists no values"));
  EXPECT_THAT(parse_tunables("// kforge:tune A = {1}\n// kforge:tune A = {2}\n#ifndef A\n#define A 1\n#endif\n").error().message, HasSubstr("declared twice"));
}

TEST(Tunables, GridWhenItFitsElseASeededSample) {
  auto t = *parse_tunables(kSource);
  EXPECT_EQ(tune_configs(t, 6, 1).size(), 6u);
  auto a = tune_configs(t, 4, 7), b = tune_configs(t, 4, 7);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
  bool has_first = false;
  for (const auto& c : a) has_first = has_first || (c.at("TILE") == "4" && c.at("UNROLL") == "1");
  EXPECT_TRUE(has_first);
}

TEST(Tunables, ApplyWritesTheValuesAheadOfTheGuards) {
  TuneConfig c{{"TILE", "16"}, {"UNROLL", "2"}};
  EXPECT_EQ(config_flags(c), (std::vector<std::string>{"-DTILE=16", "-DUNROLL=2"}));
  std::string tuned = apply_config(kSource, c);
  EXPECT_LT(tuned.find("#define TILE 16"), tuned.find("#ifndef TILE"));
  EXPECT_EQ(describe(c), "TILE=16 UNROLL=2");
}

}  // namespace kforge::agents
