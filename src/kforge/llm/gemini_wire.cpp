// Google Gemini generateContent (POST {base}/v1beta/models/MODEL:generateContent, key in the
// x-goog-api-key header): "contents" of role user/model with "parts", the system prompt as
// "systemInstruction", limits in "generationConfig". Parts marked "thought": true are reasoning.
// Streams: :streamGenerateContent?alt=sse, each event a partial GenerateContentResponse.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "kforge/llm/wire.h"

namespace kforge::llm {
namespace {

using nlohmann::json;

std::string normalize_finish(std::string f) {
  if (f == "STOP") return "stop";
  if (f == "MAX_TOKENS") return "length";
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  return f;  // "safety", "recitation", …
}

// promptTokenCount includes the cached part; candidatesTokenCount excludes thoughts.
Usage parse_usage(const json& u) {
  Usage usage;
  usage.input_tokens = json_int(u, "promptTokenCount");
  usage.cached_tokens = json_int(u, "cachedContentTokenCount");
  usage.reasoning_tokens = json_int(u, "thoughtsTokenCount");
  usage.output_tokens = json_int(u, "candidatesTokenCount") + usage.reasoning_tokens;
  return usage;
}

// Adds one response's parts to the reply (and to the stream); returns its finishReason.
std::optional<LlmError> take(const json& j, ChatReply& reply, const StreamCallback* on_delta) {
  if (j.contains("error"))
    return LlmError{ErrorKind::server, "error in the reply: " + error_detail(j.dump())};
  if (auto u = j.find("usageMetadata"); u != j.end() && u->is_object())
    reply.usage = parse_usage(*u);
  auto candidates = j.find("candidates");
  if (candidates == j.end() || !candidates->is_array() || candidates->empty()) {
    if (auto fb = j.find("promptFeedback"); fb != j.end())
      if (std::string reason = json_string(*fb, "blockReason"); !reason.empty())
        return LlmError{ErrorKind::bad_request, fmt::format("the prompt was blocked ({})", reason)};
    return std::nullopt;
  }
  const json& c = (*candidates)[0];
  if (auto content = c.find("content"); content != c.end() && content->is_object())
    if (auto parts = content->find("parts"); parts != content->end() && parts->is_array())
      for (const auto& part : *parts) {
        std::string text = json_string(part, "text");
        if (text.empty()) continue;
        bool thought = part.value("thought", false);
        (thought ? reply.reasoning : reply.text) += text;
        if (on_delta)
          (*on_delta)(thought ? StreamDelta{.reasoning = text} : StreamDelta{.text = text});
      }
  if (std::string f = json_string(c, "finishReason"); !f.empty())
    reply.finish_reason = normalize_finish(f);
  return std::nullopt;
}

class GeminiStream : public StreamDecoder {
 public:
  std::optional<LlmError> on_event(const SseEvent& event, const StreamCallback* on_delta) override {
    auto j = parse_json(event.data, "a GenerateContentResponse");
    if (!j) return j.error();
    return take(*j, reply_, on_delta);
  }

  LlmResult finish() override {
    if (reply_.finish_reason.empty())
      return LlmError{ErrorKind::truncated,
                      fmt::format("the stream ended before the reply was complete (no "
                                  "finishReason; {} characters received)",
                                  reply_.text.size())};
    return reply_;
  }

 private:
  ChatReply reply_;
};

class GeminiWire : public Wire {
 public:
  explicit GeminiWire(WireInfo info) : Wire(std::move(info)) {
    std::string models =
        join_endpoint(this->info().base_url, "/v1beta", "/models/") + this->info().model;
    url_ = models + ":generateContent";
    stream_url_ = models + ":streamGenerateContent?alt=sse";
  }

  HttpRequest build(const ChatRequest& request, bool stream) const override {
    std::string system;
    json contents = json::array();
    for (const auto& m : request.messages) {
      if (m.role == "system")
        system += (system.empty() ? "" : "\n\n") + m.content;
      else
        contents.push_back({{"role", m.role == "assistant" ? "model" : "user"},
                            {"parts", json::array({{{"text", m.content}}})}});
    }
    json body = {{"contents", std::move(contents)},
                 {"generationConfig",
                  {{"temperature", request.temperature}, {"maxOutputTokens", request.max_tokens}}}};
    if (!system.empty()) body["systemInstruction"] = {{"parts", json::array({{{"text", system}}})}};
    HttpRequest http;
    http.url = stream ? stream_url_ : url_;
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", stream ? "text/event-stream" : "application/json"},
                    {"x-goog-api-key", info().key}};
    http.body = body.dump();
    return http;
  }

  LlmResult parse(std::string_view body) const override {
    auto j = parse_json(body, "a GenerateContentResponse");
    if (!j) return j.error();
    ChatReply reply;
    if (auto e = take(*j, reply, nullptr)) return *e;
    if (!j->contains("candidates"))
      return malformed(
          fmt::format("malformed reply: no candidates (it begins: {})", excerpt(body, 80)));
    if (reply.finish_reason.empty()) reply.finish_reason = "stop";
    return reply;
  }

  std::unique_ptr<StreamDecoder> decoder() const override {
    return std::make_unique<GeminiStream>();
  }

  // Gemini answers an invalid key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
  bool is_auth_failure(int status, std::string_view body) const override {
    if (status == 401 || status == 403) return true;
    return status == 400 && (body.find("API_KEY_INVALID") != std::string_view::npos ||
                             body.find("API key not valid") != std::string_view::npos);
  }

 private:
  std::string url_, stream_url_;
};

}  // namespace

std::unique_ptr<Wire> make_gemini_wire(WireInfo info) {
  return std::make_unique<GeminiWire>(std::move(info));
}

}  // namespace kforge::llm
