// LlmSession: route, budget, cache, call, price, record.
#include "kforge/llm/session.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>

#include "kforge/core/paths.h"
#include "kforge/core/utf8.h"
#include "kforge/llm/response_cache.h"
#include "kforge/llm/token_estimate.h"
#include "kforge/llm/transcript.h"
#include "kforge/store/store.h"

namespace kforge::llm {
namespace {

std::string new_session_id() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return fmt::format("{}-{:04x}", buf, std::random_device{}() & 0xffff);
}

bool is_free(Provider p) { return p == Provider::cmd || p == Provider::replay; }

// A cmd: provider's output is any bytes; the transcript, the store and the next request are JSON.
// A provider that reports no usage gets an estimate, so budgets and cost tables count its calls.
void complete_reply(const ChatRequest& request, ChatReply& reply) {
  reply.text = core::valid_utf8(reply.text);
  reply.reasoning = core::valid_utf8(reply.reasoning);
  if (reports_no_usage(reply)) reply.usage = estimate_usage(request, reply);
}

}  // namespace

std::filesystem::path transcript_path(const std::filesystem::path& state_dir,
                                      const std::string& session_id) {
  return state_dir / "sessions" / session_id / "transcript.jsonl";
}

struct LlmSession::Impl {
  LlmConfig config;
  SessionOptions options;
  std::string id;
  Budget budget;
  std::unique_ptr<store::Database> db;  // null when not recording
  std::unique_ptr<TranscriptWriter> transcript;

  mutable std::mutex mutex;  // clients, totals, counters
  std::map<std::string, std::shared_ptr<ModelClient>> clients;
  SessionTotals totals;
  std::int64_t next_call = 0;
  std::mutex db_mutex;
  bool warned = false;

  Impl(LlmConfig c, SessionOptions o)
      : config(std::move(c)), options(std::move(o)), budget(options.budget) {}

  std::optional<std::string> env(const std::string& name) const {
    if (options.getenv) return options.getenv(name);
    if (const char* v = std::getenv(name.c_str())) return std::string(v);
    return std::nullopt;
  }

  LlmResultOf<std::shared_ptr<ModelClient>> client_for(const ModelSpec& spec) {
    std::lock_guard lock(mutex);
    if (auto it = clients.find(spec.text); it != clients.end()) return it->second;
    ClientOptions co = options.client;
    co.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(config.timeout_s * 1000));
    co.connect_timeout =
        std::chrono::milliseconds(static_cast<std::int64_t>(config.connect_timeout_s * 1000));
    co.retry.retries = config.retries;
    co.cancel = options.cancel;
    if (!co.getenv && options.getenv) co.getenv = options.getenv;
    auto made = options.make_client ? options.make_client(spec, co) : make_client(spec, co);
    if (!made) return made.error();
    std::shared_ptr<ModelClient> client = std::move(*made);
    clients[spec.text] = client;
    return client;
  }

  // A local program or a replay costs nothing unless kforge.toml gives it a price (a cmd: that
  // wraps a paid API); then its (estimated) tokens are charged like any provider's.
  void price(ChatReply& r, const ModelSpec& spec) const {
    r.cost_usd = 0;
    r.priced = true;
    if (r.cached) return;
    auto p = config.prices.find(provider_name(spec.provider), spec.model);
    if (p)
      r.cost_usd = cost_usd(*p, r.usage);
    else if (!is_free(spec.provider))
      r.priced = false;
  }

  void warn(const Error& e) {
    if (warned) return;
    warned = true;
    fmt::print(stderr,
               "kforge: warning: session {}: recording a model call failed (later failures not "
               "shown): {}\n",
               id, e.message);
  }

  // Transcript line and store row for one call (reply, or partial reply, or neither).
  // failed_ms: how long a call that failed without a reply took.
  void record(const ChatRequest& request, const ModelSpec& spec, const ChatReply* reply,
              const LlmError* error, const std::string& key, double failed_ms = 0) {
    std::int64_t call;
    {
      std::lock_guard lock(mutex);
      call = ++next_call;
      ++totals.calls;
      if (reply && reply->cached) ++totals.cached_calls;
      if (error) ++totals.failed_calls;
      if (reply && !reply->cached) {
        totals.usage.input_tokens += reply->usage.input_tokens;
        totals.usage.output_tokens += reply->usage.output_tokens;
        totals.usage.cached_tokens += reply->usage.cached_tokens;
        totals.usage.reasoning_tokens += reply->usage.reasoning_tokens;
        totals.cost_usd += reply->cost_usd;
        if (!reply->priced) totals.unpriced = true;
        if (reply->usage.estimated) totals.estimated = true;
      }
    }
    if (!options.record) return;
    TranscriptEntry e;
    e.time = utc_timestamp();
    e.session = id;
    e.call = call;
    e.request = request;
    if (reply)
      e.reply = *reply;
    else {
      e.reply.provider = std::string(provider_name(spec.provider));
      e.reply.model = spec.model;
      e.reply.priced = true;
      e.reply.latency_ms = failed_ms;
    }
    if (error) e.error = LlmError{error->kind, error->message};
    if (transcript)
      if (auto s = transcript->append(e); !s) warn(s.error());

    store::LlmCallRecord row;
    row.session_id = id;
    row.call = call;
    row.time = e.time;
    row.role = request.agent_role;
    row.provider = e.reply.provider;
    row.model = e.reply.model;
    row.input_tokens = e.reply.usage.input_tokens;
    row.output_tokens = e.reply.usage.output_tokens;
    row.cached_tokens = e.reply.usage.cached_tokens;
    row.reasoning_tokens = e.reply.usage.reasoning_tokens;
    row.tokens_estimated = e.reply.usage.estimated;
    row.latency_ms = e.reply.latency_ms;
    row.cost_usd = e.reply.cost_usd;
    row.priced = e.reply.priced;
    row.cached = e.reply.cached;
    row.finish_reason = e.reply.finish_reason;
    if (error) {
      row.error_kind = std::string(error_kind_name(error->kind));
      row.error = error->message;
    }
    row.request_key = key;
    std::lock_guard lock(db_mutex);
    if (auto s = store::insert_llm_call(*db, row); !s) warn(s.error());
  }
};

LlmSession::LlmSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LlmSession::~LlmSession() = default;

LlmResultOf<std::unique_ptr<LlmSession>> LlmSession::open(LlmConfig config,
                                                          SessionOptions options) {
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options));
  Impl& s = *impl;
  s.id = s.options.id.empty() ? new_session_id() : s.options.id;
  if (!s.options.model.empty())
    if (auto spec = parse_model_spec(s.options.model); !spec)
      return LlmError{ErrorKind::config, "--model: " + spec.error().message};
  if (s.options.record) {
    std::filesystem::path state =
        s.options.state_dir.empty() ? core::state_dir() : s.options.state_dir;
    auto db = store::open_store(store::store_path(state));
    if (!db) return LlmError{ErrorKind::config, "opening the store: " + db.error().message};
    s.db = std::move(*db);
    std::error_code ec;
    auto cwd = std::filesystem::current_path(ec);
    if (auto r =
            store::insert_session(*s.db, {s.id, utc_timestamp(), s.options.command, cwd.string()});
        !r)
      return LlmError{ErrorKind::config, "registering the session: " + r.error().message};
    auto last = store::last_llm_call(*s.db, s.id);
    if (!last) return LlmError{ErrorKind::config, last.error().message};
    s.next_call = *last;
    if (s.options.transcript) {
      auto transcript = TranscriptWriter::open(llm::transcript_path(state, s.id));
      if (!transcript) return LlmError{ErrorKind::config, transcript.error().message};
      s.transcript = std::move(*transcript);
    }
  }
  return std::unique_ptr<LlmSession>(new LlmSession(std::move(impl)));
}

LlmStatus LlmSession::check_role(const std::string& role) const {
  auto spec = model_for(role);
  if (!spec) return spec.error();
  auto client = impl_->client_for(*spec);
  if (!client) return client.error();
  return Ok{};
}

LlmResultOf<ModelSpec> LlmSession::model_for(const std::string& role) const {
  const Impl& s = *impl_;
  auto parse = [](const std::string& text, const std::string& from) -> LlmResultOf<ModelSpec> {
    auto spec = parse_model_spec(text);
    if (!spec) return LlmError{ErrorKind::config, from + ": " + spec.error().message};
    return *spec;
  };
  if (!s.options.model.empty()) return parse(s.options.model, "--model");
  if (auto env = s.env("KFORGE_MODEL"); env && !env->empty()) return parse(*env, "KFORGE_MODEL");
  std::string from = s.config.file.empty() ? "kforge.toml" : s.config.file.string();
  if (auto it = s.config.models.find(role); it != s.config.models.end())
    return parse(it->second, from + ": models." + role);
  if (auto it = s.config.models.find("default"); it != s.config.models.end())
    return parse(it->second, from + ": models.default");
  return LlmError{ErrorKind::config,
                  fmt::format("no model for role '{}': pass --model PROVIDER:MODEL, set "
                              "KFORGE_MODEL, or add [models] default = \"…\" "
                              "(or {} = \"…\") to kforge.toml",
                              role.empty() ? "(none)" : role, role.empty() ? "planner" : role)};
}

LlmResult LlmSession::complete(const ChatRequest& request, const StreamCallback* on_delta) {
  Impl& s = *impl_;
  if (s.options.cancel && s.options.cancel->load())
    return LlmError{ErrorKind::cancelled, "cancelled before the model call"};
  if (auto b = s.budget.check(); !b) return b.error();
  auto spec = model_for(request.agent_role);
  if (!spec) return spec.error();
  auto client = s.client_for(*spec);
  if (!client) return client.error();

  std::string key = cache_key(spec->text, request);
  bool use_cache = s.config.cache && s.db && spec->provider != Provider::replay;
  if (use_cache) {
    auto start = std::chrono::steady_clock::now();
    Result<std::optional<ChatReply>> hit = std::optional<ChatReply>();
    {
      std::lock_guard lock(s.db_mutex);
      hit = find_cached(*s.db, key);
    }
    if (hit && *hit) {
      ChatReply reply = std::move(**hit);
      reply.cached = true;
      reply.cost_usd = 0;
      reply.priced = true;
      reply.latency_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (on_delta && !reply.reasoning.empty()) (*on_delta)({.reasoning = reply.reasoning});
      if (on_delta && !reply.text.empty()) (*on_delta)({.text = reply.text});
      s.record(request, *spec, &reply, nullptr, key);
      return reply;
    }
    if (!hit) s.warn(hit.error());
  }

  auto start = std::chrono::steady_clock::now();
  LlmResult result = (*client)->complete(request, on_delta);
  if (result) complete_reply(request, *result);
  double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (result) {
    s.price(*result, *spec);
    s.budget.charge(result->cost_usd, result->usage.input_tokens + result->usage.output_tokens);
    s.record(request, *spec, &*result, nullptr, key);
    if (use_cache && result->finish_reason == "stop") {
      std::lock_guard lock(s.db_mutex);
      if (auto p = put_cached(*s.db, key, *result); !p) s.warn(p.error());
    }
    return result;
  }
  LlmError error = result.error();
  if (error.partial) {
    complete_reply(request, *error.partial);
    s.price(*error.partial, *spec);
    s.budget.charge(error.partial->cost_usd,
                    error.partial->usage.input_tokens + error.partial->usage.output_tokens);
  }
  s.record(request, *spec, error.partial ? &*error.partial : nullptr, &error, key, wall_ms);
  return error;
}

LlmStatus LlmSession::check_budget() const { return impl_->budget.check(); }

const Budget& LlmSession::budget() const { return impl_->budget; }

SessionTotals LlmSession::totals() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->totals;
}

const std::string& LlmSession::id() const { return impl_->id; }

std::filesystem::path LlmSession::transcript_path() const {
  return impl_->transcript ? impl_->transcript->path() : std::filesystem::path();
}

}  // namespace kforge::llm
