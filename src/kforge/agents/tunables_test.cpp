// Tunable declarations: parsing with line-numbered errors, the grid or a seeded sample, and the
// source with the chosen values written in.
#include "kforge/agents/tunables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

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
  EXPECT_THAT(parse_tunables("// kforge:tune TILE = 4, 8\n").error().message,
              HasSubstr("line 1: malformed"));
  EXPECT_THAT(parse_tunables("// kforge:tune TILE = {4}\n").error().message,
              HasSubstr("no `#ifndef TILE"));
  EXPECT_THAT(parse_tunables("// kforge:tune A = {}\n#ifndef A\n").error().message,
              HasSubstr("lists no values"));
  EXPECT_THAT(
      parse_tunables(
          "// kforge:tune A = {1}\n// kforge:tune A = {2}\n#ifndef A\n#define A 1\n#endif\n")
          .error()
          .message,
      HasSubstr("declared twice"));
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

// The chosen values become the guards' defaults: nothing is pinned ahead of the guards (a copy of
// the tuned kernel stays tunable), the lines do not move, and tuning again replaces the values.
TEST(Tunables, ApplyWritesTheValuesAsTheDefaults) {
  TuneConfig c{{"TILE", "16"}, {"UNROLL", "2"}};
  EXPECT_EQ(config_flags(c), (std::vector<std::string>{"-DTILE=16", "-DUNROLL=2"}));
  std::string tuned = apply_config(kSource, c);
  EXPECT_THAT(tuned, HasSubstr("#ifndef TILE\n#define TILE 16  // kforge: chosen by the tuner "
                               "(declared default 8)\n#endif"));
  EXPECT_THAT(tuned,
              HasSubstr("#define UNROLL 2  // kforge: chosen by the tuner (declared default 1)\n"));
  EXPECT_LT(tuned.find("#ifndef TILE"), tuned.find("#define TILE"));
  EXPECT_EQ(std::count(tuned.begin(), tuned.end(), '\n'),
            std::count(kSource, kSource + std::strlen(kSource), '\n'));
  ASSERT_TRUE(parse_tunables(tuned).ok());
  std::string again = apply_config(tuned, {{"TILE", "4"}});
  EXPECT_THAT(again,
              HasSubstr("#define TILE 4  // kforge: chosen by the tuner (declared default 8)\n"));
  EXPECT_EQ(describe(c), "TILE=16 UNROLL=2");
}

TEST(Tunables, AGuardOfAnotherShapeGetsADefineAhead) {
  std::string odd = "// kforge:tune T = {1, 2}\n#ifndef T\n// the default\n#define T 1\n#endif\n";
  std::string tuned = apply_config(odd, {{"T", "2"}});
  EXPECT_LT(tuned.find("#define T 2"), tuned.find("#ifndef T"));
}

}  // namespace kforge::agents
