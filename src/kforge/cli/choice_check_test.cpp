// A value outside an option's choices is named with the closest allowed one, and the choices still
// read as CLI11's IsMember wrote them (--help and shell completion take them from there).
#include "kforge/cli/choice_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kPartners = {"baseline", "libtorch", "torch", "torch-compile",
                                            "xla"};

// CLI11's message for `value`, "(parsed)" when it is accepted.
std::string parse_partner(const std::string& value) {
  std::string partner;
  CLI::App app("toy", "kforge");
  app.add_option("--partner", partner, "Partner")->check(choice_check(kPartners));
  try {
    app.parse(std::vector<std::string>{value, "--partner"});  // CLI11 reads the vector backwards
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return partner == value ? "(parsed)" : "(parsed as '" + partner + "')";
}

TEST(ChoiceCheck, AMistypedChoiceIsNamedWithTheClosestOne) {
  EXPECT_EQ(parse_partner("torch-compile"), "(parsed)");
  EXPECT_THAT(parse_partner("torchcompile"), HasSubstr("did you mean 'torch-compile'?"));
  EXPECT_THAT(parse_partner("torchcompile"),
              HasSubstr("'torchcompile' is not one of baseline, libtorch, torch"));
  auto far = parse_partner("mxnet");
  EXPECT_THAT(far, HasSubstr("is not one of"));
  EXPECT_THAT(far, ::testing::Not(HasSubstr("did you mean")));
}

TEST(ChoiceCheck, DescribedAsIsMember) {
  std::string format;
  CLI::App app("toy", "kforge");
  auto* o = app.add_option("--format", format, "Format")->check(choice_check({"dot", "svg"}));
  EXPECT_EQ(o->get_type_name(), "TEXT:{dot,svg}");
}

}  // namespace
}  // namespace kforge::cli
