// cmd:COMMAND — any program as a model: it is run through /bin/sh -c, gets the request as one
// JSON object on stdin ({"role", "messages", "temperature", "max_tokens"}) and its stdout is the
// reply. A non-zero exit is a provider error carrying the end of its stderr.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "kforge/core/subprocess.h"
#include "kforge/llm/local_clients.h"

namespace kforge::llm {
namespace {

std::string tail(const std::string& s, std::size_t n) {
  std::string t = s.size() > n ? "…" + s.substr(s.size() - n) : s;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  return t;
}

class CmdClient : public ModelClient {
 public:
  CmdClient(ModelSpec spec, const ClientOptions& options)
      : spec_(std::move(spec)), options_(options) {}

  std::string name() const override { return spec_.text; }

  // The program runs in its own process group, away from the terminal's Ctrl-C; the
  // cancellation flag (set by kforge's SIGINT handler) kills that group mid-call.
  LlmResult complete(const ChatRequest& request, const StreamCallback* on_delta) override {
    if (options_.cancel && options_.cancel->load()) return fail(ErrorKind::cancelled, "cancelled");
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : request.messages)
      messages.push_back({{"role", m.role}, {"content", m.content}});
    nlohmann::json input = {{"role", request.agent_role},
                            {"messages", std::move(messages)},
                            {"temperature", request.temperature},
                            {"max_tokens", request.max_tokens}};
    core::ProcessOptions po;
    po.timeout = options_.timeout;
    po.stdin_data = input.dump() + "\n";
    po.cancel = options_.cancel;
    auto r = core::run_process({"/bin/sh", "-c", spec_.model}, po);
    if (r.cancelled) return fail(ErrorKind::cancelled, "cancelled (the program was stopped)");
    if (r.spawn_failed) return fail(ErrorKind::config, r.describe());
    if (r.timed_out)
      return fail(ErrorKind::timeout,
                  fmt::format("no reply within {:.3g} s (raise [llm] timeout_s in kforge.toml)",
                              options_.timeout.count() / 1000.0));
    if (!r.success()) {
      std::string err = tail(r.err, 2000);
      return fail(ErrorKind::server,
                  fmt::format("{}{}", r.describe(), err.empty() ? " (no stderr)" : ": " + err));
    }
    ChatReply reply;
    reply.text = std::move(r.out);
    reply.finish_reason = "stop";
    reply.provider = "cmd";
    reply.model = spec_.model;
    reply.latency_ms = r.wall_ms;
    if (options_.cancel && options_.cancel->load()) return fail(ErrorKind::cancelled, "cancelled");
    if (on_delta && !reply.text.empty()) (*on_delta)({.text = reply.text});
    return reply;
  }

 private:
  LlmError fail(ErrorKind kind, const std::string& what) const {
    return LlmError{kind, fmt::format("cmd `{}`: {}", spec_.model, what)};
  }

  ModelSpec spec_;
  ClientOptions options_;
};

}  // namespace

std::unique_ptr<ModelClient> make_cmd_client(const ModelSpec& spec, const ClientOptions& options) {
  return std::make_unique<CmdClient>(spec, options);
}

}  // namespace kforge::llm
