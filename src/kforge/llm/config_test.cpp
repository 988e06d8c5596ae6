// kforge.toml for the llm layer: a full file parses (models per role, prices with cached_input
// defaulting to input, [llm] settings), other layers' tables are left alone, and every mistake
// is reported with the file, line and key: bad TOML, a bad model spec, an unknown key, a wrong
// type, a negative or missing price, a named config file that does not exist.
#include "kforge/llm/config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "kforge/llm/llm_test_util.h"

namespace kforge::llm {
namespace {

std::string error_of(const std::string& toml) {
  auto c = parse_config(toml, "kforge.toml");
  return c ? std::string("(no error)") : c.error().message;
}

TEST(Config, FullFile) {
  auto c = parse_config(R"(
[models]
default = "anthropic:claude-sonnet-4-5"
planner = "openai:o3"
coder = "openai-compatible:qwen@http://localhost:8000/v1"

[prices."openai-compatible:qwen"]
input = 0.2
output = 0.6

[prices."openai:gpt-4o"]
input = 2
output = 8.0
cached_input = 0.5

[llm]
timeout_s = 120
connect_timeout_s = 2.5
retries = 5
cache = true

[search]          # another layer's table
beam = 4
)",
                        "kforge.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->models.at("default"), "anthropic:claude-sonnet-4-5");
  EXPECT_EQ(c->models.at("planner"), "openai:o3");
  EXPECT_EQ(c->models.at("coder"), "openai-compatible:qwen@http://localhost:8000/v1");
  EXPECT_DOUBLE_EQ(c->prices.find("openai-compatible", "qwen")->cached_input, 0.2);
  EXPECT_DOUBLE_EQ(c->prices.find("openai", "gpt-4o")->input, 2.0);
  EXPECT_DOUBLE_EQ(c->prices.find("openai", "gpt-4o")->cached_input, 0.5);
  EXPECT_TRUE(c->prices.find("anthropic", "claude-sonnet-4-5"));  // defaults stay
  EXPECT_DOUBLE_EQ(c->timeout_s, 120);
  EXPECT_DOUBLE_EQ(c->connect_timeout_s, 2.5);
  EXPECT_EQ(c->retries, 5);
  EXPECT_TRUE(c->cache);
}

TEST(Config, EmptyFileGivesDefaults) {
  auto c = parse_config("", "kforge.toml");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->models.empty());
  EXPECT_DOUBLE_EQ(c->timeout_s, 600);
  EXPECT_EQ(c->retries, 3);
  EXPECT_FALSE(c->cache);
}

TEST(Config, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("[models]\nplanner = \"gpt4\"\n"),
            "kforge.toml:2:11: models.planner: 'gpt4' is not PROVIDER:MODEL (providers: openai, "
            "openai-compatible, anthropic, gemini, cmd, "
            "replay), e.g. openai:gpt-4o");
  EXPECT_EQ(error_of("[models]\ncoder = 3\n"),
            "kforge.toml:2:9: models.coder: must be a string \"PROVIDER:MODEL\"");
  EXPECT_EQ(error_of("[llm]\ntimeout_s = 60\nretry = 2\n"),
            "kforge.toml:3:9: llm.retry: unknown key in [llm] (allowed: timeout_s, "
            "connect_timeout_s, retries, cache)");
  EXPECT_EQ(error_of("[llm]\nretries = 99\n"),
            "kforge.toml:2:11: llm.retries: must be a whole number from 0 to 10");
  EXPECT_EQ(error_of("[llm]\ncache = \"yes\"\n"),
            "kforge.toml:2:9: llm.cache: must be true or false");
  EXPECT_EQ(error_of("[llm]\ntimeout_s = -1\n"),
            "kforge.toml:2:13: llm.timeout_s: must be a positive number of seconds");
  EXPECT_EQ(error_of("[prices.\"openai:x\"]\ninput = -1\noutput = 1\n"),
            "kforge.toml:2:9: prices.\"openai:x\".input: must not be negative");
  EXPECT_EQ(error_of("[prices.\"openai:x\"]\ninput = 1\n"),
            "kforge.toml:1:1: prices.\"openai:x\".output: missing (USD per million output tokens)");
  EXPECT_EQ(error_of("[prices.\"openai:x\"]\ninput = 1\noutput = 2\ncache = 1\n"),
            "kforge.toml:4:9: prices.\"openai:x\".cache: unknown key in "
            "[prices.\"openai:x\"] (allowed: input, output, cached_input; USD per million tokens); "
            "did you mean 'cached_input'?");
  EXPECT_EQ(error_of("[prices.gpt4]\ninput = 1\noutput = 2\n"),
            "kforge.toml:1:1: prices.\"gpt4\": the key must be \"provider:model\", e.g. "
            "[prices.\"openai:gpt-4o\"]");
  EXPECT_EQ(error_of("models = 3\n"), "kforge.toml:1:10: models: must be a table ([models])");
}

TEST(Config, UnknownModelRolesAreTyposNotIgnored) {
  EXPECT_EQ(error_of("[models]\ndefualt = \"cmd:cat\"\n"),
            "kforge.toml:2:11: models.defualt: unknown role (expected default, planner, coder, "
            "debugger, profiler); did you mean 'default'?");
  EXPECT_EQ(error_of("[models]\nplaner = \"cmd:cat\"\n"),
            "kforge.toml:2:10: models.planer: unknown role (expected default, planner, coder, "
            "debugger, profiler); did you mean 'planner'?");
  EXPECT_EQ(error_of("[models]\nwriter = \"cmd:cat\"\n"),
            "kforge.toml:2:10: models.writer: unknown role (expected default, planner, coder, "
            "debugger, profiler)");
  for (auto role : kModelRoles) {
    auto c = parse_config("[models]\n" + std::string(role) + " = \"cmd:cat\"\n", "kforge.toml");
    EXPECT_TRUE(c) << c.error().message;
  }
}

// A misspelt key or table would leave its setting silently unused: each is an error that names the
// closest real one; a table far from every kforge table is another program's, and left alone.
TEST(Config, UnknownKeysAndTablesSuggestTheClosest) {
  EXPECT_EQ(error_of("[llm]\ntimeout = 60\n"),
            "kforge.toml:2:11: llm.timeout: unknown key in [llm] (allowed: timeout_s, "
            "connect_timeout_s, retries, cache); did you mean 'timeout_s'?");
  EXPECT_EQ(error_of("[llm]\nconect_timeout_s = 5\n"),
            "kforge.toml:2:20: llm.conect_timeout_s: unknown key in [llm] (allowed: "
            "timeout_s, connect_timeout_s, retries, cache); did you mean "
            "'connect_timeout_s'?");
  EXPECT_EQ(error_of("[llm]\nwhatever = 1\n"),
            "kforge.toml:2:12: llm.whatever: unknown key in [llm] (allowed: timeout_s, "
            "connect_timeout_s, retries, cache)");
  EXPECT_EQ(error_of("[prices.\"openai:x\"]\ninput = 1\nouptut = 2\n"),
            "kforge.toml:3:10: prices.\"openai:x\".ouptut: unknown key in "
            "[prices.\"openai:x\"] (allowed: input, output, cached_input; USD per million tokens); "
            "did you "
            "mean 'output'?");
  EXPECT_EQ(error_of("[modles]\ndefault = \"cmd:cat\"\n"),
            "kforge.toml:1:1: modles: unknown table or key (kforge reads [models], [prices] and "
            "[llm]); did you mean 'models'?");
  EXPECT_EQ(error_of("[llms]\nretries = 1\n"),
            "kforge.toml:1:1: llms: unknown table or key (kforge reads [models], [prices] and "
            "[llm]); did you mean 'llm'?");
  auto other =
      parse_config("[search]\nwidth = 4\n[models]\ndefault = \"cmd:cat\"\n", "kforge.toml");
  EXPECT_TRUE(other) << other.error().message;
}

TEST(Config, SyntaxErrorsNameLineAndColumn) {
  auto e = error_of("[models]\nplanner = \"openai:o3\n");
  EXPECT_EQ(e.rfind("kforge.toml:2:", 0), 0u) << e;
}

TEST(Config, LoadsANamedFileAndRefusesAMissingOne) {
  testing::TempDir dir;
  auto file = dir.path() / "my.toml";
  std::ofstream(file) << "[models]\ndefault = \"cmd:cat\"\n";
  auto c = load_config(file);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->models.at("default"), "cmd:cat");
  EXPECT_EQ(c->file, file);
  auto missing = load_config(dir.path() / "nope.toml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.toml: no such config file"), std::string::npos);
}

}  // namespace
}  // namespace kforge::llm
