// kforge llm ping [--model M] [--json] [--stream]: one tiny request; latency, tokens, cost.
// kforge llm usage [SESSION|last] [--json]: model usage by session, role and model, from the store.
// Exit status: 0 fine, 1 the model call failed (ping), 2 usage error.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/shorten.h"
#include "kforge/llm/llm.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

using nlohmann::json;

struct PingOptions {
  std::string model, config;
  bool json = false, stream = false;
  double timeout = 60;
};

struct UsageOptions {
  std::string session;
  bool json = false;
};

std::string format_usd(double usd) {
  return usd == 0 ? "$0" : usd < 0.01 ? fmt::format("${:.6f}", usd) : fmt::format("${:.4f}", usd);
}

int run_ping(const PingOptions& o) {
  auto config = llm::load_config(o.config);
  if (!config) throw UsageError(config.error().message);
  config->timeout_s = o.timeout;
  config->cache = false;  // a ping must reach the model
  llm::SessionOptions so;
  so.command = o.model.empty() ? "kforge llm ping" : "kforge llm ping --model " + o.model;
  so.model = o.model;
  so.cancel = llm::install_interrupt_handler();
  // Its call is counted by `kforge llm usage`; it is no run, so no session folder is left.
  so.transcript = false;

  auto fail = [&](const llm::LlmError& e, const std::string& model, double ms) {
    if (o.json) {
      fmt::print("{}\n", json{{"ok", false},
                              {"model", model},
                              {"error", e.message},
                              {"error_kind", llm::error_kind_name(e.kind)},
                              {"latency_ms", ms}}
                             .dump(2));
    } else {
      fmt::print(stderr, "kforge: llm ping: {}\n", e.message);
    }
    return 1;
  };
  // An unknown model or a missing key is how kforge was called, not a failed call: exit 2, and no
  // session is recorded for a request that was never sent.
  {
    llm::SessionOptions dry = so;
    dry.record = false;
    auto probe = llm::LlmSession::open(*config, dry);
    if (!probe) throw UsageError("llm ping: " + probe.error().message);
    if (auto ready = (*probe)->check_role("ping"); !ready)
      throw UsageError("llm ping: " + ready.error().message);
  }
  auto session = llm::LlmSession::open(*config, so);
  if (!session) return fail(session.error(), o.model, 0);
  auto spec = (*session)->model_for("ping");
  if (!spec) return fail(spec.error(), o.model, 0);

  llm::ChatRequest request;
  request.agent_role = "ping";
  request.messages = {{"system", "You are a connectivity check. Answer with one word."},
                      {"user", "Reply with the single word: pong"}};
  request.temperature = 0;
  request.max_tokens = 1024;  // reasoning models think before the one word
  bool streaming = o.stream && !o.json;
  llm::StreamCallback show = [](const llm::StreamDelta& d) {
    if (!d.text.empty()) fmt::print("{}", d.text);
    std::fflush(stdout);
  };
  auto start = std::chrono::steady_clock::now();
  auto reply = (*session)->complete(request, streaming ? &show : nullptr);
  double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (streaming) fmt::print("\n");
  if (!reply) return fail(reply.error(), spec->text, wall_ms);

  const llm::ChatReply& r = *reply;
  if (o.json) {
    fmt::print("{}\n", json{{"ok", true},
                            {"model", spec->text},
                            {"provider", r.provider},
                            {"reply", r.text},
                            {"latency_ms", r.latency_ms},
                            {"tokens_in", r.usage.input_tokens},
                            {"tokens_out", r.usage.output_tokens},
                            {"cached_tokens", r.usage.cached_tokens},
                            {"reasoning_tokens", r.usage.reasoning_tokens},
                            {"tokens_estimated", r.usage.estimated},
                            {"cost_usd", r.cost_usd},
                            {"priced", r.priced},
                            {"session", (*session)->id()}}
                           .dump(2));
    return 0;
  }
  const bool est = r.usage.estimated;
  std::string tokens =
      fmt::format("{} in ({} cached), {} out", format_tokens(r.usage.input_tokens, est),
                  format_tokens(r.usage.cached_tokens), format_tokens(r.usage.output_tokens, est));
  if (r.usage.reasoning_tokens)
    tokens += fmt::format(" ({} reasoning)", format_tokens(r.usage.reasoning_tokens, est));
  if (est) tokens += " (estimated: the provider reported no usage)";
  std::string reply_text = core::shorten(r.text, 200, "…");
  fmt::print("{}", key_values({
                       {"model", spec->text},
                       {"reply", reply_text},
                       {"latency", fmt::format("{} ms", format_ms(r.latency_ms))},
                       {"tokens", tokens},
                       {"cost", r.priced ? format_usd(r.cost_usd)
                                         : "unpriced (add [prices.\"" + spec->price_key() +
                                               "\"] to kforge.toml)"},
                       {"session", (*session)->id()},
                   }));
  return 0;
}

json usage_json(const store::UsageRow& u) {
  return {{"session", u.session_id},
          {"started_at", u.started_at},
          {"role", u.role},
          {"provider", u.provider},
          {"model", u.model},
          {"calls", u.calls},
          {"cached_calls", u.cached_calls},
          {"failed_calls", u.failed_calls},
          {"tokens_in", u.input_tokens},
          {"tokens_out", u.output_tokens},
          {"cached_tokens", u.cached_tokens},
          {"reasoning_tokens", u.reasoning_tokens},
          {"tokens_estimated", u.estimated},
          {"cost_usd", u.cost_usd},
          {"unpriced", u.unpriced},
          {"latency_ms", u.latency_ms}};
}

void add_to(store::UsageRow& total, const store::UsageRow& u) {
  total.calls += u.calls;
  total.cached_calls += u.cached_calls;
  total.failed_calls += u.failed_calls;
  total.input_tokens += u.input_tokens;
  total.output_tokens += u.output_tokens;
  total.cached_tokens += u.cached_tokens;
  total.reasoning_tokens += u.reasoning_tokens;
  total.cost_usd += u.cost_usd;
  total.latency_ms += u.latency_ms;
  total.unpriced = total.unpriced || u.unpriced;
  total.estimated = total.estimated || u.estimated;
}

int run_usage(const UsageOptions& o) {
  auto path = store::store_path(core::state_dir());
  std::vector<store::UsageRow> rows;
  std::string session = o.session;
  if (std::filesystem::exists(path)) {
    auto db = store::open_store(path);
    if (!db) throw UsageError(db.error().message);
    if (session == "last") {
      auto sessions = store::list_sessions(**db);
      if (!sessions) throw UsageError(sessions.error().message);
      if (sessions->empty())
        throw UsageError(fmt::format("no sessions recorded in {}", path.string()));
      session = sessions->front().id;
    }
    if (!session.empty()) {
      auto found = store::find_session(**db, session);
      if (!found) throw UsageError(found.error().message);
      if (!*found)
        throw UsageError(
            fmt::format("no session '{}' in {} (see `kforge llm usage`)", session, path.string()));
    }
    auto got = store::llm_usage(**db, session);
    if (!got) throw UsageError(got.error().message);
    rows = std::move(*got);
  } else if (!o.session.empty()) {
    throw UsageError(fmt::format("no session '{}': nothing recorded yet ({} does not exist)",
                                 o.session, path.string()));
  }

  store::UsageRow total;
  std::vector<std::string> order;  // sessions, newest first
  std::map<std::string, store::UsageRow> by_session;
  for (const auto& u : rows) {
    add_to(total, u);
    if (!by_session.count(u.session_id)) {
      order.push_back(u.session_id);
      by_session[u.session_id].session_id = u.session_id;
      by_session[u.session_id].started_at = u.started_at;
    }
    add_to(by_session[u.session_id], u);
  }
  if (o.json) {
    json j = {{"rows", json::array()}, {"sessions", json::array()}, {"total", usage_json(total)}};
    for (const auto& u : rows) j["rows"].push_back(usage_json(u));
    for (const auto& id : order) {
      json s = usage_json(by_session[id]);
      for (const char* k : {"role", "provider", "model"}) s.erase(k);
      j["sessions"].push_back(std::move(s));
    }
    for (const char* k : {"session", "started_at", "role", "provider", "model"})
      j["total"].erase(k);
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  if (rows.empty()) {
    if (o.session.empty())
      fmt::print("no model calls recorded yet (in {})\n", path.string());
    else
      fmt::print("session {} made no model calls\n", session);
    return 0;
  }
  Table t({"session", "role", "model", "calls", "tokens in", "cached", "tokens out", "reasoning",
           "cost"},
          {false, false, false, true, true, true, true, true, true});
  auto cost = [](const store::UsageRow& u) {
    return format_usd(u.cost_usd) + (u.unpriced ? "*" : "");
  };
  auto calls = [](const store::UsageRow& u) {
    std::string s = format_tokens(u.calls);
    if (u.cached_calls) s += fmt::format(" ({} cached)", u.cached_calls);
    if (u.failed_calls) s += fmt::format(" ({} failed)", u.failed_calls);
    return s;
  };
  for (const auto& id : order) {
    bool first = true;
    for (const auto& u : rows) {
      if (u.session_id != id) continue;
      t.add({first ? id : "", u.role, u.provider + ":" + u.model, calls(u),
             format_tokens(u.input_tokens, u.estimated), format_tokens(u.cached_tokens),
             format_tokens(u.output_tokens, u.estimated),
             format_tokens(u.reasoning_tokens, u.estimated), cost(u)});
      first = false;
    }
    std::size_t lines = std::count_if(rows.begin(), rows.end(),
                                      [&](const store::UsageRow& u) { return u.session_id == id; });
    if (lines > 1 && order.size() > 1) {
      const auto& s = by_session[id];
      t.add({"", "(session)", "", calls(s), format_tokens(s.input_tokens, s.estimated),
             format_tokens(s.cached_tokens), format_tokens(s.output_tokens, s.estimated),
             format_tokens(s.reasoning_tokens, s.estimated), cost(s)});
    }
  }
  t.add({"total", "", "", calls(total), format_tokens(total.input_tokens, total.estimated),
         format_tokens(total.cached_tokens), format_tokens(total.output_tokens, total.estimated),
         format_tokens(total.reasoning_tokens, total.estimated), cost(total)});
  fmt::print("{}", t.render());
  if (total.unpriced)
    fmt::print(
        "* includes calls to models without a price: add [prices.\"provider:model\"] to "
        "kforge.toml\n");
  if (total.estimated) fmt::print("{}\n", kEstimatedTokensNote);
  return 0;
}

}  // namespace

void add_llm(CommandLine& cmd) {
  cmd.require_subcommand();
  auto p = std::make_shared<PingOptions>();
  auto ping = cmd.subcommand(
      "ping", "Send one tiny request to a model: latency, tokens, cost (exit 1 when it fails)");
  ping.bind("model", p->model);
  ping.bind("config", p->config);
  ping.bind("reply-timeout", p->timeout);
  ping.bind("stream", p->stream);
  ping.bind("json", p->json);
  ping.on_run([p] { return run_ping(*p); });

  auto u = std::make_shared<UsageOptions>();
  auto usage = cmd.subcommand(
      "usage", "Model usage and cost by session, role and model, from .kforge/kforge.db");
  usage.bind("session", u->session);
  usage.bind("json", u->json);
  usage.on_run([u] { return run_usage(*u); });
}

}  // namespace kforge::cli
