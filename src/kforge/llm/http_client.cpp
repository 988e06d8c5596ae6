// The shared HTTP call: attempt, classify, back off, attempt again.
#include "kforge/llm/http_client.h"

#include <fmt/format.h>

#include <chrono>

#include "kforge/llm/http_transport.h"
#include "kforge/llm/redact.h"
#include "kforge/llm/retry.h"

namespace kforge::llm {
namespace {

struct Attempt {
  LlmResult result;
  bool retryable = false;
  std::optional<double> retry_after_s;
};

class HttpModelClient : public ModelClient {
 public:
  HttpModelClient(std::string name, std::unique_ptr<Wire> wire, const ClientOptions& options)
      : name_(std::move(name)), wire_(std::move(wire)), options_(options) {
    if (!options_.transport) options_.transport = make_curl_transport();
    if (!wire_->info().key.empty()) secrets_.push_back(wire_->info().key);
  }

  std::string name() const override { return name_; }

  LlmResult complete(const ChatRequest& request, const StreamCallback* on_delta) override {
    auto start = std::chrono::steady_clock::now();
    HttpRequest http = wire_->build(request, on_delta != nullptr);
    http.timeout = options_.timeout;
    http.connect_timeout = options_.connect_timeout;
    LlmResult result = with_retries(http, request, on_delta);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto stamp = [&](ChatReply& r) {
      r.provider = wire_->info().provider;
      r.model = wire_->info().model;
      r.latency_ms = ms;
    };
    if (result) {
      stamp(*result);
      return result;
    }
    LlmError e = result.error();
    e.message = redact(e.message, secrets_);
    if (e.partial) stamp(*e.partial);
    return e;
  }

 private:
  LlmResult with_retries(const HttpRequest& http, const ChatRequest& request,
                         const StreamCallback* on_delta) {
    for (int attempt = 0;; ++attempt) {
      if (options_.cancel && options_.cancel->load())
        return fail(ErrorKind::cancelled, "cancelled");
      bool delivered = false;
      Attempt a = once(http, request, on_delta, delivered);
      // After part of a stream reached the caller, a retry would show it twice: report instead.
      bool last = !a.retryable || delivered || attempt >= options_.retry.retries;
      if (a.result.ok() || last) {
        if (!a.result.ok() && attempt > 0) {
          LlmError e = a.result.error();
          e.message += fmt::format(" (gave up after {} attempts)", attempt + 1);
          return e;
        }
        return std::move(a.result);
      }
      double delay = backoff_delay(options_.retry, attempt, a.retry_after_s, random_jitter());
      if (options_.sleep)
        options_.sleep(delay);
      else if (!sleep_unless_cancelled(delay, options_.cancel))
        return fail(ErrorKind::cancelled, "cancelled");
    }
  }

  Attempt once(const HttpRequest& http, const ChatRequest& request, const StreamCallback* on_delta,
               bool& delivered) {
    std::unique_ptr<StreamDecoder> decoder;
    SseParser sse;
    std::optional<LlmError> stream_error;
    std::string raw;  // a server that ignores "stream" sends plain JSON
    bool saw_event = false;
    StreamCallback forward = [&](const StreamDelta& d) {
      delivered = true;
      (*on_delta)(d);
    };
    auto on_event = [&](const SseEvent& e) {
      saw_event = true;
      if (auto err = decoder->on_event(e, &forward)) {
        stream_error = std::move(err);
        return false;
      }
      return true;
    };
    ChunkReader reader = [&](std::string_view bytes) {
      if (raw.size() < (1u << 20)) raw.append(bytes);
      return sse.feed(bytes, on_event);
    };
    if (on_delta) decoder = wire_->decoder();

    HttpResponse r = options_.transport->post(http, on_delta ? &reader : nullptr, options_.cancel);
    switch (r.failure) {
      case TransportFailure::none:
        break;
      case TransportFailure::cancelled:
        return {fail(ErrorKind::cancelled, "cancelled")};
      case TransportFailure::timeout:
        return {
            fail(ErrorKind::timeout,
                 fmt::format("no complete reply within {} (raise [llm] timeout_s in kforge.toml)",
                             seconds(options_.timeout)))};
      case TransportFailure::network:
        return {fail(ErrorKind::network,
                     fmt::format("cannot reach {}: {}", http.url, r.failure_detail)),
                true};
      case TransportFailure::truncated:
        return {fail(ErrorKind::truncated,
                     fmt::format("the connection closed before the reply was complete ({})",
                                 r.failure_detail))};
      case TransportFailure::stopped: {
        // An error event (Anthropic's overloaded_error after a 200) is retried like its status.
        bool again = stream_error->kind == ErrorKind::server ||
                     stream_error->kind == ErrorKind::rate_limited;
        return {fail(stream_error->kind, stream_error->message), again};
      }
    }
    if (r.status < 200 || r.status >= 300) return classify(r);

    LlmResult reply = LlmError{ErrorKind::malformed, ""};
    if (!on_delta)
      reply = wire_->parse(r.body);
    else {
      bool ok = sse.finish(on_event);
      if (!ok && stream_error) return {fail(stream_error->kind, stream_error->message)};
      if (!saw_event && raw.find_first_not_of(" \t\r\n") != std::string::npos &&
          raw[raw.find_first_not_of(" \t\r\n")] == '{') {
        reply = wire_->parse(raw);
        if (reply) {
          if (!reply->reasoning.empty()) forward({.reasoning = reply->reasoning});
          if (!reply->text.empty()) forward({.text = reply->text});
        }
      } else {
        reply = decoder->finish();
      }
    }
    if (!reply) return {fail(reply.error().kind, reply.error().message)};
    if (reply->finish_reason == "length") {
      LlmError e =
          fail(ErrorKind::truncated, fmt::format("the reply was cut off at max_tokens ({}): raise "
                                                 "max_tokens or ask for a shorter answer",
                                                 request.max_tokens));
      e.partial = std::move(*reply);
      return {std::move(e)};
    }
    return {std::move(reply)};
  }

  // A non-2xx status: what it means and what to do about it.
  Attempt classify(const HttpResponse& r) const {
    const WireInfo& w = wire_->info();
    std::string detail = error_detail(r.body);
    std::string says = detail.empty() ? "" : fmt::format(" (the provider says: {})", detail);
    auto status_error = [&](ErrorKind kind, const std::string& what) {
      return LlmError{
          kind,
          redact(fmt::format("{} from {}: {}{}", r.status, w.provider, what, says), secrets_)};
    };
    if (wire_->is_auth_failure(r.status, r.body)) {
      std::string what;
      if (w.key.empty())
        what = fmt::format("the server at {} wants an API key: set {}", w.base_url, w.key_env);
      else if (r.status == 403)
        what =
            fmt::format("the API key in {} is not allowed to use model '{}'", w.key_env, w.model);
      else
        what = fmt::format("the API key in {} was rejected", w.key_env);
      return {status_error(ErrorKind::auth, what)};
    }
    if (r.status == 429)
      return {status_error(ErrorKind::rate_limited, "rate limited"), true, r.retry_after_s};
    if (r.status >= 500 || r.status == 408)
      return {status_error(ErrorKind::server, "server error"), true, r.retry_after_s};
    if (r.status == 404) {
      std::string where =
          w.base_env.empty() ? w.base_url : fmt::format("{} (from {})", w.base_url, w.base_env);
      return {status_error(
          ErrorKind::bad_request,
          fmt::format(
              "model '{}' or the API at {} was not found: check the model name and the base URL",
              w.model, where))};
    }
    if (r.status == 413)
      return {status_error(ErrorKind::bad_request, "the request is too large: shorten the prompt")};
    return {status_error(ErrorKind::bad_request, "the request was rejected")};
  }

  LlmError fail(ErrorKind kind, const std::string& what) const {
    return LlmError{
        kind, redact(fmt::format("{} ({}): {}", wire_->info().provider, wire_->info().model, what),
                     secrets_)};
  }

  static std::string seconds(std::chrono::milliseconds ms) {
    return ms.count() % 1000 == 0 ? fmt::format("{} s", ms.count() / 1000)
                                  : fmt::format("{:.3g} s", ms.count() / 1000.0);
  }

  std::string name_;
  std::unique_ptr<Wire> wire_;
  ClientOptions options_;
  std::vector<std::string> secrets_;
};

}  // namespace

std::unique_ptr<ModelClient> make_http_client(std::string name, std::unique_ptr<Wire> wire,
                                              const ClientOptions& options) {
  return std::make_unique<HttpModelClient>(std::move(name), std::move(wire), options);
}

}  // namespace kforge::llm
