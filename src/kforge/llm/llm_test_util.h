#pragma once
// Test helpers for the llm layer: a local HTTP server (cpp-httplib on 127.0.0.1, an ephemeral
// port, its own thread) that plays scripted replies and records what it received; canned
// replies in each provider's wire format; fake environments; a private state folder.
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kforge/llm/model_client.h"

namespace kforge::llm::testing {

// One scripted reply.
struct Canned {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> chunks;  // when set: sent one after another (chunked), e.g. SSE events
  bool cut = false;                 // after the chunks, drop the connection without ending the body
  int delay_ms = 0;                 // before answering
};

inline Canned sse(std::vector<std::string> events, bool cut = false) {
  Canned c;
  c.content_type = "text/event-stream";
  c.chunks = std::move(events);
  c.cut = cut;
  return c;
}

inline Canned status(int code, std::string body,
                     std::vector<std::pair<std::string, std::string>> headers = {}) {
  Canned c;
  c.status = code;
  c.body = std::move(body);
  c.headers = std::move(headers);
  return c;
}

struct Received {
  std::string path;    // without the query
  std::string target;  // with it
  httplib::Headers headers;
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  bool has_header(const std::string& name) const { return headers.find(name) != headers.end(); }
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

class TestServer {
 public:
  TestServer() {
    server_.Post(".*",
                 [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); });
    // Like the providers' servers: no Nagle delay between the header and body writes (with it,
    // a delayed ACK adds 40 ms to some exchanges), and connections kept alive.
    server_.set_tcp_nodelay(true);
    server_.set_keep_alive_max_count(1000);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~TestServer() {
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Served in order; the last one repeats.
  void script(std::vector<Canned> replies) {
    std::lock_guard lock(mutex_);
    script_ = std::move(replies);
    next_ = 0;
  }

  std::vector<Received> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void handle(const httplib::Request& req, httplib::Response& res) {
    Canned c;
    {
      std::lock_guard lock(mutex_);
      received_.push_back({req.path, req.target, req.headers, req.body});
      if (script_.empty())
        c = status(500, R"({"error": {"message": "no scripted reply"}})");
      else
        c = script_[std::min(next_++, script_.size() - 1)];
    }
    if (c.delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(c.delay_ms));
    res.status = c.status;
    for (const auto& [k, v] : c.headers) res.set_header(k, v);
    if (c.chunks.empty()) {
      res.set_content(c.body, c.content_type.c_str());
      return;
    }
    res.set_chunked_content_provider(
        c.content_type, [chunks = c.chunks, cut = c.cut](size_t, httplib::DataSink& sink) {
          for (const auto& chunk : chunks)
            if (!sink.write(chunk.data(), chunk.size())) return false;
          if (cut) return false;  // the connection closes without the last chunk
          sink.done();
          return true;
        });
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<Canned> script_;
  std::size_t next_ = 0;
  std::vector<Received> received_;
};

// A fake environment for make_client: keys and base URLs without touching the process's.
inline std::function<std::optional<std::string>(const std::string&)> env(
    std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// Client options for tests: short timeouts, recorded (not slept) back-off.
struct TestOptions {
  std::vector<double> sleeps;
  ClientOptions options(std::map<std::string, std::string> vars) {
    ClientOptions o;
    o.timeout = std::chrono::milliseconds(2000);
    o.connect_timeout = std::chrono::milliseconds(1000);
    o.retry.retries = 3;
    o.getenv = env(std::move(vars));
    o.sleep = [this](double s) { sleeps.push_back(s); };
    return o;
  }
};

inline std::string data(const nlohmann::json& j) { return "data: " + j.dump() + "\n\n"; }
inline std::string event(const std::string& name, const nlohmann::json& j) {
  return "event: " + name + "\n" + data(j);
}

// A folder of its own under /tmp, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "-" + info->name() : "test";
    for (char& c : name)
      if (c == '/') c = '_';
    path_ = std::filesystem::temp_directory_path() /
            ("kforge-llm-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::llm::testing
