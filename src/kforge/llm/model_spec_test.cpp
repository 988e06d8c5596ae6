// PROVIDER:MODEL parsing: every provider, the @URL of openai-compatible, commands with colons
// and spaces, and errors that list the providers or show the expected form.
#include "kforge/llm/model_spec.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(ModelSpec, ParsesEveryProvider) {
  auto o = parse_model_spec("openai:gpt-4o");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->provider, Provider::openai);
  EXPECT_EQ(o->model, "gpt-4o");
  EXPECT_EQ(o->price_key(), "openai:gpt-4o");
  auto c = parse_model_spec("openai-compatible:Qwen/Qwen2.5-Coder-32B@http://localhost:8000/v1");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->provider, Provider::openai_compatible);
  EXPECT_EQ(c->model, "Qwen/Qwen2.5-Coder-32B");
  EXPECT_EQ(c->base_url, "http://localhost:8000/v1");
  EXPECT_EQ(c->price_key(), "openai-compatible:Qwen/Qwen2.5-Coder-32B");
  EXPECT_EQ(parse_model_spec("anthropic:claude-sonnet-4-5")->provider, Provider::anthropic);
  EXPECT_EQ(parse_model_spec("gemini:gemini-2.5-pro")->provider, Provider::gemini);
  auto cmd = parse_model_spec("cmd:python3 -c 'import sys; print(1)' --opt=a:b");
  ASSERT_TRUE(cmd);
  EXPECT_EQ(cmd->provider, Provider::cmd);
  EXPECT_EQ(cmd->model, "python3 -c 'import sys; print(1)' --opt=a:b");
  auto replay = parse_model_spec(" replay:runs/a.jsonl ");
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->model, "runs/a.jsonl");
}

TEST(ModelSpec, Errors) {
  auto none = parse_model_spec("gpt-4o");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("is not PROVIDER:MODEL"), std::string::npos);
  auto typo = parse_model_spec("opneai:gpt-4o");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().message,
            "unknown provider 'opneai' in 'opneai:gpt-4o' (providers: openai, openai-compatible, "
            "anthropic, gemini, cmd, replay)");
  auto no_url = parse_model_spec("openai-compatible:qwen");
  ASSERT_FALSE(no_url);
  EXPECT_NE(no_url.error().message.find("MODEL@BASE_URL"), std::string::npos);
  auto empty = parse_model_spec("cmd:");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("needs a command"), std::string::npos);
}

}  // namespace
}  // namespace kforge::llm
