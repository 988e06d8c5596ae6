// Anthropic Messages (POST {base}/v1/messages, x-api-key, anthropic-version 2023-06-01): the
// system prompt is the top-level "system", max_tokens is required, the reply is a list of
// content blocks ("text", "thinking"). Streams: message_start, content_block_start/delta/stop,
// message_delta (stop_reason, output tokens), message_stop; "error" events mid-stream.
#include <fmt/format.h>

#include "kforge/llm/wire.h"

namespace kforge::llm {
namespace {

using nlohmann::json;

std::string normalize_stop(const std::string& stop) {
  if (stop == "end_turn" || stop == "stop_sequence") return "stop";
  if (stop == "max_tokens") return "length";
  if (stop == "tool_use") return "tool_calls";
  return stop;
}

// input_tokens excludes the cache: kforge's input_tokens counts reads and writes too.
void add_usage(const json& u, Usage& usage) {
  if (!u.is_object()) return;
  std::int64_t cache_read = json_int(u, "cache_read_input_tokens");
  if (u.contains("input_tokens"))
    usage.input_tokens =
        json_int(u, "input_tokens") + cache_read + json_int(u, "cache_creation_input_tokens");
  if (u.contains("cache_read_input_tokens")) usage.cached_tokens = cache_read;
  if (u.contains("output_tokens")) usage.output_tokens = json_int(u, "output_tokens");
}

ErrorKind stream_error_kind(const std::string& type) {
  if (type == "rate_limit_error") return ErrorKind::rate_limited;
  if (type == "authentication_error" || type == "permission_error") return ErrorKind::auth;
  if (type == "invalid_request_error") return ErrorKind::bad_request;
  return ErrorKind::server;  // overloaded_error, api_error
}

class AnthropicStream : public StreamDecoder {
 public:
  std::optional<LlmError> on_event(const SseEvent& event, const StreamCallback* on_delta) override {
    auto j = parse_json(event.data, "a Messages stream event");
    if (!j) return j.error();
    std::string type = json_string(*j, "type");
    if (type == "message_start") {
      if (auto m = j->find("message"); m != j->end() && m->is_object())
        if (auto u = m->find("usage"); u != m->end()) add_usage(*u, reply_.usage);
    } else if (type == "content_block_delta") {
      auto d = j->find("delta");
      if (d == j->end() || !d->is_object())
        return malformed("malformed stream: content_block_delta without a delta");
      std::string dtype = json_string(*d, "type");
      if (dtype == "text_delta") {
        std::string t = json_string(*d, "text");
        reply_.text += t;
        if (on_delta && !t.empty()) (*on_delta)({.text = t});
      } else if (dtype == "thinking_delta") {
        std::string t = json_string(*d, "thinking");
        reply_.reasoning += t;
        if (on_delta && !t.empty()) (*on_delta)({.reasoning = t});
      }
    } else if (type == "message_delta") {
      if (auto d = j->find("delta"); d != j->end())
        if (std::string s = json_string(*d, "stop_reason"); !s.empty())
          reply_.finish_reason = normalize_stop(s);
      if (auto u = j->find("usage"); u != j->end()) add_usage(*u, reply_.usage);
    } else if (type == "message_stop") {
      stopped_ = true;
    } else if (type == "error") {
      const json& e = j->value("error", json::object());
      return LlmError{stream_error_kind(json_string(e, "type")),
                      "error in the stream: " + error_detail(event.data)};
    }
    return std::nullopt;  // ping, content_block_start/stop, unknown events
  }

  LlmResult finish() override {
    if (!stopped_)
      return LlmError{ErrorKind::truncated,
                      fmt::format("the stream ended before the reply was complete (no "
                                  "message_stop; {} characters received)",
                                  reply_.text.size())};
    if (reply_.finish_reason.empty()) reply_.finish_reason = "stop";
    return reply_;
  }

 private:
  ChatReply reply_;
  bool stopped_ = false;
};

class AnthropicWire : public Wire {
 public:
  explicit AnthropicWire(WireInfo info)
      : Wire(std::move(info)), url_(join_endpoint(this->info().base_url, "/v1", "/messages")) {}

  HttpRequest build(const ChatRequest& request, bool stream) const override {
    std::string system;
    json messages = json::array();
    for (const auto& m : request.messages) {
      if (m.role == "system")
        system += (system.empty() ? "" : "\n\n") + m.content;
      else
        messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    json body = {{"model", info().model},
                 {"max_tokens", request.max_tokens},
                 {"messages", std::move(messages)},
                 {"temperature", request.temperature}};
    if (!system.empty()) body["system"] = system;
    if (stream) body["stream"] = true;
    HttpRequest http;
    http.url = url_;
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", stream ? "text/event-stream" : "application/json"},
                    {"anthropic-version", "2023-06-01"},
                    {"x-api-key", info().key}};
    http.body = body.dump();
    return http;
  }

  LlmResult parse(std::string_view body) const override {
    auto j = parse_json(body, "a Messages reply");
    if (!j) return j.error();
    if (json_string(*j, "type") == "error")
      return LlmError{ErrorKind::server, "error in the reply: " + error_detail(body)};
    auto content = j->find("content");
    if (content == j->end() || !content->is_array())
      return malformed(
          fmt::format("malformed reply: no content blocks (it begins: {})", excerpt(body, 80)));
    ChatReply reply;
    for (const auto& block : *content) {
      std::string type = json_string(block, "type");
      if (type == "text")
        reply.text += json_string(block, "text");
      else if (type == "thinking")
        reply.reasoning += json_string(block, "thinking");
    }
    reply.finish_reason = normalize_stop(json_string(*j, "stop_reason"));
    if (reply.finish_reason.empty()) reply.finish_reason = "stop";
    if (auto u = j->find("usage"); u != j->end()) add_usage(*u, reply.usage);
    return reply;
  }

  std::unique_ptr<StreamDecoder> decoder() const override {
    return std::make_unique<AnthropicStream>();
  }

 private:
  std::string url_;
};

}  // namespace

std::unique_ptr<Wire> make_anthropic_wire(WireInfo info) {
  return std::make_unique<AnthropicWire>(std::move(info));
}

}  // namespace kforge::llm
