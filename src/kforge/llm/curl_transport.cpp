// HttpTransport over libcurl: one easy handle per exchange, taken from a pool so that keep-alive
// connections survive between calls; cancellation through the progress callback.
#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "kforge/core/trim.h"
#include "kforge/llm/http_transport.h"

namespace kforge::llm {
namespace {

constexpr std::size_t kBodyLimit = 64u << 20;

struct Exchange {
  CURL* handle = nullptr;
  HttpResponse* response = nullptr;
  const ChunkReader* on_chunk = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  bool reader_stopped = false;
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::optional<double> parse_seconds(std::string_view v) {
  std::string s(core::trim(v));
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    return std::nullopt;  // HTTP-date form: not used
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return d;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) ==
      0) {  // a new response (after 100 Continue): forget the last one's headers
    x->response->content_type.clear();
    x->response->retry_after_s.reset();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name = lower(core::trim(line.substr(0, colon)));
  std::string_view value = core::trim(line.substr(colon + 1));
  if (name == "content-type")
    x->response->content_type = lower(value);
  else if (name == "retry-after-ms") {
    if (auto ms = parse_seconds(value)) x->response->retry_after_s = *ms / 1000.0;
  } else if (name == "retry-after" && !x->response->retry_after_s) {
    x->response->retry_after_s = parse_seconds(value);
  }
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  std::string_view bytes(data, size * n);
  long status = 0;
  curl_easy_getinfo(x->handle, CURLINFO_RESPONSE_CODE, &status);
  if (x->on_chunk && status >= 200 && status < 300) {
    if (!(*x->on_chunk)(bytes)) {
      x->reader_stopped = true;
      return 0;  // stops the transfer (CURLE_WRITE_ERROR)
    }
    return bytes.size();
  }
  std::string& body = x->response->body;
  if (body.size() < kBodyLimit) body.append(bytes.substr(0, kBodyLimit - body.size()));
  return bytes.size();
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* x = static_cast<Exchange*>(user);
  return x->cancel && x->cancel->load() ? 1 : 0;
}

class CurlTransport : public HttpTransport {
 public:
  CurlTransport() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }
  ~CurlTransport() override {
    for (CURL* h : idle_) curl_easy_cleanup(h);
  }

  HttpResponse post(const HttpRequest& request, const ChunkReader* on_chunk,
                    const std::atomic<bool>* cancel) override {
    HttpResponse response;
    if (cancel && cancel->load()) {
      response.failure = TransportFailure::cancelled;
      return response;
    }
    CURL* h = acquire();
    Exchange x{h, &response, on_chunk, cancel};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers)
      headers = curl_slist_append(headers, fmt::format("{}: {}", name, value).c_str());
    headers =
        curl_slist_append(headers, "Expect:");  // no 100-continue round trip for large prompts
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(request.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "kforge/" KFORGE_VERSION);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &x);
    char error_buffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);

    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    double connect_s = 0;
    curl_easy_getinfo(h, CURLINFO_CONNECT_TIME, &connect_s);
    if (rc != CURLE_OK) {
      response.failure_detail = error_buffer[0] ? error_buffer : curl_easy_strerror(rc);
      switch (rc) {
        case CURLE_ABORTED_BY_CALLBACK:
          response.failure = TransportFailure::cancelled;
          break;
        case CURLE_OPERATION_TIMEDOUT:
          // Never connected: the server is unreachable, which a retry may fix.
          response.failure = connect_s > 0 ? TransportFailure::timeout : TransportFailure::network;
          break;
        case CURLE_WRITE_ERROR:
          response.failure =
              x.reader_stopped ? TransportFailure::stopped : TransportFailure::network;
          break;
        case CURLE_PARTIAL_FILE:
          response.failure = TransportFailure::truncated;
          break;
        case CURLE_RECV_ERROR:
        case CURLE_HTTP2_STREAM:
          // Closed in the middle of a body we had started to receive: truncated, not unreachable.
          response.failure = status > 0 ? TransportFailure::truncated : TransportFailure::network;
          break;
        default:
          response.failure = TransportFailure::network;
          break;
      }
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl_slist_free_all(headers);
    release(h, rc == CURLE_OK);
    return response;
  }

 private:
  CURL* acquire() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        curl_easy_reset(h);  // options cleared, live connections kept
        return h;
      }
    }
    return curl_easy_init();
  }

  void release(CURL* h, bool healthy) {
    std::lock_guard lock(mutex_);
    if (healthy && idle_.size() < 16)
      idle_.push_back(h);
    else
      curl_easy_cleanup(h);
  }

  std::mutex mutex_;
  std::vector<CURL*> idle_;
};

}  // namespace

std::shared_ptr<HttpTransport> make_curl_transport() { return std::make_shared<CurlTransport>(); }

}  // namespace kforge::llm
