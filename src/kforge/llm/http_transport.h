#pragma once
// The one side effect of the HTTP providers, behind a narrow interface: POST a body, get the
// status, headers that matter and the body (or, for a 2xx stream, the body as it arrives).
// The real one is libcurl; tests talk to a local server through it, or replace it.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kforge::llm {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // may carry a key: never logged
  std::string body;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds timeout{600000};  // the whole exchange, a stream included
};

// How an exchange ended short of a complete HTTP response.
enum class TransportFailure {
  none,
  network,    // could not connect (also within connect_timeout), reset, DNS failure
  timeout,    // connected, but the exchange took longer than `timeout`
  cancelled,  // the cancellation flag was set
  truncated,  // the connection closed before the body was complete
  stopped,    // the chunk reader asked to stop
};

struct HttpResponse {
  int status = 0;  // 0 when no response arrived
  std::string content_type;
  std::optional<double> retry_after_s;  // Retry-After (seconds form) or retry-after-ms
  std::string body;                     // everything, unless streamed to the chunk reader
  TransportFailure failure = TransportFailure::none;
  std::string failure_detail;  // the transport's own words ("Connection refused")
};

// Receives the body of a 2xx response as it arrives; returning false stops the transfer.
using ChunkReader = std::function<bool(std::string_view)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Thread-safe. With on_chunk set, a 2xx body goes to on_chunk instead of HttpResponse::body
  // (an error body is still collected). `cancel`, when set, is polled during the exchange.
  virtual HttpResponse post(const HttpRequest& request, const ChunkReader* on_chunk,
                            const std::atomic<bool>* cancel) = 0;
};

// libcurl, with a pool of handles so connections (and TLS sessions) are reused across calls.
std::shared_ptr<HttpTransport> make_curl_transport();

}  // namespace kforge::llm
