#pragma once
// LlmSession: what agents call. For each request it picks the model for the request's role,
// checks the budget, answers from the response cache when allowed, calls the model, prices the
// reply, and records the call in the session's transcript and in the store (llm_calls). It
// keeps running totals. Thread-safe: several calls may run at once.

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kforge/llm/budget.h"
#include "kforge/llm/chat.h"
#include "kforge/llm/config.h"
#include "kforge/llm/llm_error.h"
#include "kforge/llm/model_client.h"
#include "kforge/llm/model_spec.h"

namespace kforge::llm {

struct SessionTotals {
  std::int64_t calls = 0, cached_calls = 0, failed_calls = 0;
  Usage usage;  // tokens of calls that reached a model (not cache hits)
  double cost_usd = 0;
  bool unpriced = false;   // some call used a model without a known price
  bool estimated = false;  // some call's tokens were estimated (its provider reported none)
};

struct SessionOptions {
  std::string id;       // empty: a new id ("20250601-120000-3f2a"); an existing id resumes
  std::string command;  // what started the session, kept in the store
  std::string model;    // --model PROVIDER:MODEL: every role uses it
  BudgetLimits budget;  // --max-usd, --max-tokens
  std::filesystem::path state_dir;  // empty: core::state_dir()
  bool record = true;               // false: no transcript, no store, no cache
  // false: calls go to the store (`kforge llm usage` counts them) but no sessions/<id>/ folder is
  // made: for a call that belongs to no run (`kforge llm ping`), which `kforge sessions` would
  // not list.
  bool transcript = true;
  const std::atomic<bool>* cancel = nullptr;  // install_interrupt_handler()'s flag, or a test's

  // Seams for tests; empty means the real thing. Timeouts and retries come from the config.
  ClientOptions client;                                                       // transport, sleep
  std::function<std::optional<std::string>(const std::string& name)> getenv;  // KFORGE_MODEL, keys
  std::function<LlmResultOf<std::unique_ptr<ModelClient>>(const ModelSpec&, const ClientOptions&)>
      make_client;
};

class LlmSession {
 public:
  // Opens the store and the transcript (when recording) and registers the session.
  static LlmResultOf<std::unique_ptr<LlmSession>> open(LlmConfig config, SessionOptions options);
  ~LlmSession();

  // One model call for request.agent_role; on_delta streams the reply as it is written. Fails
  // with budget_exhausted (before calling) once the budget is spent, cancelled once the flag is
  // set, config when the role has no model. Every call that reached a model (or the cache) is
  // recorded, failures included.
  LlmResult complete(const ChatRequest& request, const StreamCallback* on_delta = nullptr);

  // The model a role uses: --model, else $KFORGE_MODEL, else [models].ROLE, else [models].default.
  LlmResultOf<ModelSpec> model_for(const std::string& role) const;
  // Whether a role can be called at all: its model resolves and its client can be made (an API
  // key is set). For commands that check before they build or measure anything.
  LlmStatus check_role(const std::string& role) const;
  // For loops that want to stop before starting an expensive step (not only before a call).
  LlmStatus check_budget() const;
  const Budget& budget()
      const;  // its limits and what was spent, for telling the agents what is left
  SessionTotals totals() const;
  const std::string& id() const;
  std::filesystem::path transcript_path() const;  // empty when not recording

 private:
  struct Impl;
  explicit LlmSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// sessions/<id>/transcript.jsonl under a state folder.
std::filesystem::path transcript_path(const std::filesystem::path& state_dir,
                                      const std::string& session_id);

}  // namespace kforge::llm
