#pragma once
// `kforge serve`'s HTTP server: the pages (HTML, CSS and JavaScript built into the binary), a JSON
// API over the store (sessions, runs with their nodes and model calls, graphs as SVG), server-sent
// events while a run or a hitl session changes, and hitl sessions driven from the page. Every
// request passes request_guard first.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kforge/core/result.h"
#include "kforge/web/hitl_backend.h"
#include "kforge/web/request_guard.h"
#include "kforge/web/serve_scratch.h"

namespace httplib {
class Server;
}

namespace kforge::web {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8765;            // 0: any free port
  bool allow_remote = false;  // binding to a host that is not loopback needs it
  std::filesystem::path state_dir;
  HitlOpener open_hitl;
  std::filesystem::path binary;  // the kforge binary runs started from the page run
};

class HitlHost;
class RunLauncher;

class Server {
 public:
  // Refuses a non-loopback host without allow_remote (a token is made for it).
  static Result<std::unique_ptr<Server>> create(ServerOptions options);
  ~Server();

  // Binds; the port actually bound (options.port, or the one chosen for 0).
  Result<int> bind();
  // Serves until stop() (from another thread or a signal watcher).
  void serve();
  void stop();

  const std::string& token() const { return guard_.token; }
  // The address to open: with ?token=… when a token is needed.
  std::string url() const;

 private:
  explicit Server(ServerOptions options);
  void routes();
  std::shared_ptr<HitlHost> hitl(const std::string& id);

  ServerOptions options_;
  ServeScratch scratch_;  // diff(1)'s files for the run page; gone with the server
  GuardConfig guard_;
  std::unique_ptr<httplib::Server> http_;
  std::atomic<bool> stopping_{false};
  std::mutex hitl_mu_;
  std::map<std::string, std::shared_ptr<HitlHost>> hitl_;
  std::unique_ptr<RunLauncher> launcher_;
};

}  // namespace kforge::web
