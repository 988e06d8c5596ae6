// OpenAI Chat Completions (POST {base}/v1/chat/completions), also spoken by vLLM, llama.cpp's
// server, Ollama and most gateways ("openai-compatible"). Reasoning text comes back as
// message.reasoning_content (vLLM, DeepSeek) or message.reasoning; streams are SSE chunks
// ending in "data: [DONE]", with usage in the last chunk (stream_options.include_usage).
#include <fmt/format.h>

#include "kforge/llm/wire.h"

namespace kforge::llm {
namespace {

using nlohmann::json;

// o1, o3, o4-mini, gpt-5…: reasoning models take only the default temperature.
bool is_reasoning_model(const std::string& model) {
  for (const char* prefix : {"o1", "o3", "o4", "gpt-5"})
    if (model.rfind(prefix, 0) == 0) return true;
  return false;
}

Usage parse_usage(const json& u) {
  Usage usage;
  if (!u.is_object()) return usage;
  usage.input_tokens = json_int(u, "prompt_tokens");
  usage.output_tokens = json_int(u, "completion_tokens");
  if (auto d = u.find("prompt_tokens_details"); d != u.end())
    usage.cached_tokens = json_int(*d, "cached_tokens");
  if (auto d = u.find("completion_tokens_details"); d != u.end())
    usage.reasoning_tokens = json_int(*d, "reasoning_tokens");
  return usage;
}

std::string reasoning_of(const json& message) {
  std::string r = json_string(message, "reasoning_content");
  return r.empty() ? json_string(message, "reasoning") : r;
}

class OpenAiStream : public StreamDecoder {
 public:
  std::optional<LlmError> on_event(const SseEvent& event, const StreamCallback* on_delta) override {
    if (event.data == "[DONE]") {
      done_ = true;
      return std::nullopt;
    }
    auto j = parse_json(event.data, "a chat.completion.chunk");
    if (!j) return j.error();
    if (j->contains("error"))
      return LlmError{ErrorKind::server, "error in the stream: " + error_detail(event.data)};
    if (auto u = j->find("usage"); u != j->end() && u->is_object()) reply_.usage = parse_usage(*u);
    if (std::string m = json_string(*j, "model"); !m.empty()) model_ = m;
    auto choices = j->find("choices");
    if (choices == j->end() || !choices->is_array() || choices->empty()) return std::nullopt;
    const json& choice = (*choices)[0];
    if (auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
      std::string text = json_string(*d, "content"), reasoning = reasoning_of(*d);
      reply_.text += text;
      reply_.reasoning += reasoning;
      if (on_delta && !reasoning.empty()) (*on_delta)({.reasoning = reasoning});
      if (on_delta && !text.empty()) (*on_delta)({.text = text});
    }
    if (std::string f = json_string(choice, "finish_reason"); !f.empty()) reply_.finish_reason = f;
    return std::nullopt;
  }

  LlmResult finish() override {
    if (reply_.finish_reason.empty())
      return LlmError{
          ErrorKind::truncated,
          fmt::format(
              "the stream ended before the reply was complete (no finish_reason; {} characters "
              "received{})",
              reply_.text.size(), done_ ? "" : ", no [DONE]")};
    return reply_;
  }

 private:
  ChatReply reply_;
  std::string model_;
  bool done_ = false;
};

class OpenAiWire : public Wire {
 public:
  OpenAiWire(WireInfo info, bool compatible) : Wire(std::move(info)), compatible_(compatible) {
    // A full endpoint URL is taken as is; otherwise "/v1" is added unless the base has it.
    const std::string& base = this->info().base_url;
    url_ = base.size() > 17 && base.ends_with("/chat/completions")
               ? base
               : join_endpoint(base, "/v1", "/chat/completions");
  }

  HttpRequest build(const ChatRequest& request, bool stream) const override {
    json messages = json::array();
    for (const auto& m : request.messages)
      messages.push_back({{"role", m.role}, {"content", m.content}});
    json body = {{"model", info().model}, {"messages", std::move(messages)}};
    // OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens);
    // compatible servers know max_tokens.
    body[compatible_ ? "max_tokens" : "max_completion_tokens"] = request.max_tokens;
    if (compatible_ || !is_reasoning_model(info().model)) body["temperature"] = request.temperature;
    if (stream) {
      body["stream"] = true;
      body["stream_options"] = {{"include_usage", true}};
    }
    HttpRequest http;
    http.url = url_;
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", stream ? "text/event-stream" : "application/json"}};
    if (!info().key.empty()) http.headers.emplace_back("Authorization", "Bearer " + info().key);
    http.body = body.dump();
    return http;
  }

  LlmResult parse(std::string_view body) const override {
    auto j = parse_json(body, "a chat.completion");
    if (!j) return j.error();
    if (j->contains("error"))
      return LlmError{ErrorKind::server, "error in the reply: " + error_detail(body)};
    auto choices = j->find("choices");
    if (choices == j->end() || !choices->is_array() || choices->empty())
      return malformed(
          fmt::format("malformed reply: no choices (it begins: {})", excerpt(body, 80)));
    const json& choice = (*choices)[0];
    auto message = choice.find("message");
    if (message == choice.end() || !message->is_object())
      return malformed("malformed reply: choices[0] has no message");
    ChatReply reply;
    reply.text = json_string(*message, "content");
    reply.reasoning = reasoning_of(*message);
    reply.finish_reason = json_string(choice, "finish_reason");
    if (reply.finish_reason.empty()) reply.finish_reason = "stop";
    if (auto u = j->find("usage"); u != j->end()) reply.usage = parse_usage(*u);
    return reply;
  }

  std::unique_ptr<StreamDecoder> decoder() const override {
    return std::make_unique<OpenAiStream>();
  }

 private:
  bool compatible_;
  std::string url_;
};

}  // namespace

std::unique_ptr<Wire> make_openai_wire(WireInfo info, bool compatible) {
  return std::make_unique<OpenAiWire>(std::move(info), compatible);
}

}  // namespace kforge::llm
