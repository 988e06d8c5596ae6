// kforge serve [--port N] [--host H --allow-remote]: the web page over this state folder. Hitl
// sessions started from the page are set up exactly as `kforge hitl` sets them up (hitl_setup.h),
// with this command's model options as their defaults. Ctrl-C stops the server cleanly: open
// sessions are saved and marked finished, and resume from the page or the terminal.
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/hitl_setup.h"
#include "kforge/core/paths.h"
#include "kforge/llm/interrupt.h"
#include "kforge/web/server.h"

namespace kforge::cli {
namespace {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8765;
  bool allow_remote = false;
  HitlCliOptions hitl;  // the defaults of sessions started from the page
};

web::HitlOpener hitl_opener(const ServeOptions& o) {
  return
      [defaults = o.hitl](const web::HitlRequest& r) -> Result<std::unique_ptr<web::HitlBackend>> {
        HitlCliOptions h = defaults;
        h.task = r.task;
        h.resume = r.resume;
        if (!r.size.empty()) h.size = r.size;
        if (!r.model.empty()) h.model = r.model;
        try {
          return std::unique_ptr<web::HitlBackend>(
              open_hitl(h, [](const std::string& line) { fmt::print("{}", line); }));
        } catch (const std::exception& e) {  // UsageError, InternalError: the page shows the reason
          return Error{e.what()};
        }
      };
}

int run_serve(const ServeOptions& o) {
  require_writable_state_dir();
  // Runs started from the page are this binary's own auto and search commands.
  std::error_code ec;
  auto binary = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) binary = core::executable_dir() / "kforge";
  auto server = web::Server::create(
      {o.host, o.port, o.allow_remote, core::state_dir(), hitl_opener(o), binary});
  if (!server) throw UsageError(server.error().message);
  auto port = (*server)->bind();
  if (!port) throw UsageError(port.error().message);
  llm::install_interrupt_handler();
  fmt::print("kforge serve: {} (state {}); Ctrl-C stops it\n", (*server)->url(),
             core::state_dir().string());
  if (!(*server)->token().empty())
    fmt::print("every request must carry the token {} (the address above sets it)\n",
               (*server)->token());
  std::fflush(stdout);
  std::thread watcher([&] {
    while (!llm::interrupt_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (*server)->stop();
  });
  (*server)->serve();
  if (!llm::interrupt_requested()) (*server)->stop();
  watcher.detach();  // it returns once the interrupt comes; the process ends first otherwise
  server->reset();   // open hitl sessions are saved and marked finished
  fmt::print("kforge serve: stopped\n");
  return 0;
}

}  // namespace

void add_serve(CommandLine& cmd) {
  auto o = std::make_shared<ServeOptions>();
  cmd.bind("port", o->port);
  cmd.bind("host", o->host);
  cmd.bind("allow-remote", o->allow_remote);
  cmd.bind("model", o->hitl.model);
  cmd.bind("config", o->hitl.config);
  cmd.bind("prompts", o->hitl.prompts);
  cmd.bind("threads", o->hitl.threads);
  cmd.bind("budget", o->hitl.budget);
  cmd.bind("max-usd", o->hitl.max_usd);
  cmd.bind("max-tokens", o->hitl.max_tokens);
  cmd.on_run([o] { return run_serve(*o); });
}

}  // namespace kforge::cli
