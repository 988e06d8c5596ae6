#pragma once
// Canned exchanges in each HTTP provider's real wire format, for tests that run the same
// scenario against all three: the same reply ("Hello, world", reasoning "think"; 10 tokens in
// of which 4 cached, 7 out) as one body and as a stream, a stream missing its last event, a
// reply cut at max_tokens, and a 401 body that echoes the key (as some gateways do).
#include <string>
#include <vector>

#include "kforge/llm/chat.h"
#include "kforge/llm/llm_test_util.h"

namespace kforge::llm::testing {

inline const std::string kFakeKey = "sk-kforge-FAKE-KEY-0123456789abcdef";

struct Profile {
  std::string name;  // provider name in messages and replies
  std::string spec;  // PROVIDER:MODEL
  std::string model;
  std::string key_env, base_env;
  std::string path;           // where a plain request goes
  std::string stream_target;  // where a streamed one goes (path and query)
  std::string ok_body, length_body, unauthorized_body;
  std::vector<std::string> ok_stream, cut_stream;
  Usage usage;  // what the ok replies parse to
  std::string reasoning;
};

inline std::ostream& operator<<(std::ostream& os, const Profile& p) { return os << p.name; }

inline Profile openai_profile() {
  using nlohmann::json;
  Profile p;
  p.name = "openai";
  p.spec = "openai:gpt-4o";
  p.model = "gpt-4o";
  p.key_env = "OPENAI_API_KEY";
  p.base_env = "OPENAI_BASE_URL";
  p.path = "/v1/chat/completions";
  p.stream_target = "/v1/chat/completions";
  json usage = {{"prompt_tokens", 10},
                {"completion_tokens", 7},
                {"total_tokens", 17},
                {"prompt_tokens_details", {{"cached_tokens", 4}}},
                {"completion_tokens_details", {{"reasoning_tokens", 2}}}};
  auto body = [&](const char* finish) {
    return json{{"id", "chatcmpl-1"},
                {"object", "chat.completion"},
                {"model", "gpt-4o-2024-08-06"},
                {"choices", json::array({{{"index", 0},
                                          {"message",
                                           {{"role", "assistant"},
                                            {"content", "Hello, world"},
                                            {"reasoning_content", "think"}}},
                                          {"finish_reason", finish}}})},
                {"usage", usage}}
        .dump();
  };
  p.ok_body = body("stop");
  p.length_body = body("length");
  p.unauthorized_body = json{{"error",
                              {{"message", "Incorrect API key provided: " + kFakeKey},
                               {"type", "invalid_request_error"},
                               {"code", "invalid_api_key"}}}}
                            .dump();
  auto chunk = [](json delta, json finish = nullptr) {
    return data(
        {{"id", "c1"},
         {"object", "chat.completion.chunk"},
         {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}});
  };
  p.ok_stream = {chunk({{"role", "assistant"}, {"content", ""}}),
                 chunk({{"reasoning_content", "think"}}),
                 chunk({{"content", "Hello"}}),
                 chunk({{"content", ", world"}}),
                 chunk(json::object(), "stop"),
                 data({{"id", "c1"},
                       {"object", "chat.completion.chunk"},
                       {"choices", json::array()},
                       {"usage", usage}}),
                 "data: [DONE]\n\n"};
  p.cut_stream = {p.ok_stream[0], p.ok_stream[1], p.ok_stream[2]};
  p.usage = {10, 7, 4, 2};
  p.reasoning = "think";
  return p;
}

inline Profile anthropic_profile() {
  using nlohmann::json;
  Profile p;
  p.name = "anthropic";
  p.spec = "anthropic:claude-sonnet-4-5";
  p.model = "claude-sonnet-4-5";
  p.key_env = "ANTHROPIC_API_KEY";
  p.base_env = "ANTHROPIC_BASE_URL";
  p.path = "/v1/messages";
  p.stream_target = "/v1/messages";
  json usage = {{"input_tokens", 6},
                {"cache_read_input_tokens", 4},
                {"cache_creation_input_tokens", 0},
                {"output_tokens", 7}};
  auto body = [&](const char* stop) {
    return json{{"id", "msg_1"},
                {"type", "message"},
                {"role", "assistant"},
                {"model", "claude-sonnet-4-5-20250929"},
                {"content",
                 json::array({{{"type", "thinking"}, {"thinking", "think"}, {"signature", "sig"}},
                              {{"type", "text"}, {"text", "Hello, world"}}})},
                {"stop_reason", stop},
                {"stop_sequence", nullptr},
                {"usage", usage}}
        .dump();
  };
  p.ok_body = body("end_turn");
  p.length_body = body("max_tokens");
  p.unauthorized_body =
      json{{"type", "error"},
           {"error",
            {{"type", "authentication_error"}, {"message", "invalid x-api-key " + kFakeKey}}}}
          .dump();
  json start_usage = usage;
  start_usage["output_tokens"] = 1;
  p.ok_stream = {
      event("message_start", {{"type", "message_start"},
                              {"message",
                               {{"id", "msg_1"},
                                {"type", "message"},
                                {"role", "assistant"},
                                {"content", json::array()},
                                {"model", "claude-sonnet-4-5-20250929"},
                                {"stop_reason", nullptr},
                                {"usage", start_usage}}}}),
      event("content_block_start", {{"type", "content_block_start"},
                                    {"index", 0},
                                    {"content_block", {{"type", "thinking"}, {"thinking", ""}}}}),
      event("content_block_delta",
            {{"type", "content_block_delta"},
             {"index", 0},
             {"delta", {{"type", "thinking_delta"}, {"thinking", "think"}}}}),
      event("content_block_delta",
            {{"type", "content_block_delta"},
             {"index", 0},
             {"delta", {{"type", "signature_delta"}, {"signature", "sig"}}}}),
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}),
      event("content_block_start", {{"type", "content_block_start"},
                                    {"index", 1},
                                    {"content_block", {{"type", "text"}, {"text", ""}}}}),
      event("ping", {{"type", "ping"}}),
      event("content_block_delta", {{"type", "content_block_delta"},
                                    {"index", 1},
                                    {"delta", {{"type", "text_delta"}, {"text", "Hello"}}}}),
      event("content_block_delta", {{"type", "content_block_delta"},
                                    {"index", 1},
                                    {"delta", {{"type", "text_delta"}, {"text", ", world"}}}}),
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", 1}}),
      event("message_delta", {{"type", "message_delta"},
                              {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                              {"usage", {{"output_tokens", 7}}}}),
      event("message_stop", {{"type", "message_stop"}}),
  };
  p.cut_stream = {p.ok_stream.begin(), p.ok_stream.begin() + 8};
  p.usage = {10, 7, 4, 0};  // Anthropic does not count thinking tokens separately
  p.reasoning = "think";
  return p;
}

inline Profile gemini_profile() {
  using nlohmann::json;
  Profile p;
  p.name = "gemini";
  p.spec = "gemini:gemini-2.5-pro";
  p.model = "gemini-2.5-pro";
  p.key_env = "GEMINI_API_KEY";
  p.base_env = "GEMINI_BASE_URL";
  p.path = "/v1beta/models/gemini-2.5-pro:generateContent";
  p.stream_target = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
  json usage = {{"promptTokenCount", 10},
                {"cachedContentTokenCount", 4},
                {"candidatesTokenCount", 5},
                {"thoughtsTokenCount", 2},
                {"totalTokenCount", 17}};
  auto body = [&](const char* finish) {
    return json{{"candidates",
                 json::array({{{"content",
                                {{"role", "model"},
                                 {"parts", json::array({{{"text", "think"}, {"thought", true}},
                                                        {{"text", "Hello, world"}}})}}},
                               {"finishReason", finish},
                               {"index", 0}}})},
                {"usageMetadata", usage},
                {"modelVersion", "gemini-2.5-pro"}}
        .dump();
  };
  p.ok_body = body("STOP");
  p.length_body = body("MAX_TOKENS");
  p.unauthorized_body = json{{"error",
                              {{"code", 401},
                               {"message", "API key " + kFakeKey + " is not valid"},
                               {"status", "UNAUTHENTICATED"}}}}
                            .dump();
  auto part = [&](json parts, json finish, json u) {
    json c = {{"content", {{"role", "model"}, {"parts", parts}}}, {"index", 0}};
    if (!finish.is_null()) c["finishReason"] = finish;
    // Gemini separates events with CRLF pairs.
    return "data: " +
           json{{"candidates", json::array({c})},
                {"usageMetadata", u},
                {"modelVersion", "gemini-2.5-pro"}}
               .dump() +
           "\r\n\r\n";
  };
  json partial_usage = {
      {"promptTokenCount", 10}, {"thoughtsTokenCount", 2}, {"totalTokenCount", 12}};
  p.ok_stream = {
      part(json::array({{{"text", "think"}, {"thought", true}}}), nullptr, partial_usage),
      part(json::array({{{"text", "Hello"}}}), nullptr, partial_usage),
      part(json::array({{{"text", ", world"}}}), "STOP", usage)};
  p.cut_stream = {p.ok_stream[0], p.ok_stream[1]};
  p.usage = {10, 7, 4, 2};
  p.reasoning = "think";
  return p;
}

inline std::vector<Profile> http_profiles() {
  return {openai_profile(), anthropic_profile(), gemini_profile()};
}

inline ChatRequest hello_request() {
  ChatRequest r;
  r.agent_role = "planner";
  r.messages = {{"system", "You are terse."}, {"user", "Say hello."}};
  r.temperature = 0.3;
  r.max_tokens = 100;
  return r;
}

}  // namespace kforge::llm::testing
