// An evaluation's JSON form survives text that is not UTF-8: a kernel that prints "\xff\xfe" or
// whose output is cut inside a character still serializes (nlohmann::json::dump would throw).
#include "kforge/eval/evaluation.h"

#include <gtest/gtest.h>

#include "kforge/core/utf8.h"

namespace kforge::eval {
namespace {

TEST(EvaluationJson, InvalidUtf8InKernelOutputIsReplaced) {
  Evaluation e;
  e.verdict = Verdict::incorrect;
  e.reason = "output 'y' differs: the kernel printed \xff";
  e.kernel_output = std::string("garbage \xff\xfe then a cut euro \xE2\x82");
  std::string dump;
  ASSERT_NO_THROW(dump = to_json(e).dump());
  EXPECT_EQ(core::first_invalid_utf8(dump), std::string::npos);
  auto back = nlohmann::json::parse(dump);
  EXPECT_EQ(back["kernel_output"].get<std::string>(), "garbage \xEF\xBF\xBD\xEF\xBF\xBD then a cut euro \xEF\xBF\xBD");
  EXPECT_EQ(back["reason"].get<std::string>(), "output 'y' differs: the kernel printed \xEF\xBF\xBD");
}

}  // namespace
}  // namespace kforge::eval
