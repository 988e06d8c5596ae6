// replay:FILE — answers from a recorded transcript, call by call, so a session can be re-run
// without a model (and without cost). A request that differs from the recording is an error
// (diverged) naming the call and showing the first message that differs. Calls made in
// parallel may arrive in another order than recorded: an unused recorded call with the very
// same messages is accepted too. Recorded errors are replayed as errors.
#include <fmt/format.h>

#include <mutex>

#include "kforge/llm/local_clients.h"
#include "kforge/llm/transcript.h"

namespace kforge::llm {
namespace {

bool same(const std::vector<ChatMessage>& a, const std::vector<ChatMessage>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].role != b[i].role || a[i].content != b[i].content) return false;
  return true;
}

// Up to 100 characters of `s` around `pos`, newlines shown as \n.
std::string around(const std::string& s, std::size_t pos) {
  std::size_t from = pos > 40 ? pos - 40 : 0;
  std::string out = from > 0 ? "…" : "";
  for (char c : s.substr(from, 100)) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  if (from + 100 < s.size()) out += "…";
  return out;
}

std::string first_difference(const std::vector<ChatMessage>& recorded,
                             const std::vector<ChatMessage>& now) {
  std::size_t n = std::min(recorded.size(), now.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto &r = recorded[i], &q = now[i];
    if (r.role != q.role)
      return fmt::format("message {} is a '{}' message now, '{}' in the recording", i + 1, q.role,
                         r.role);
    if (r.content == q.content) continue;
    std::size_t pos = 0;
    while (pos < r.content.size() && pos < q.content.size() && r.content[pos] == q.content[pos])
      ++pos;
    return fmt::format(
        "message {} ({}) differs at character {}:\n  recorded: \"{}\"\n  now:      \"{}\"", i + 1,
        q.role, pos + 1, around(r.content, pos), around(q.content, pos));
  }
  if (now.size() > recorded.size())
    return fmt::format(
        "the request has {} messages, the recording {}; message {} ({}) is new: \"{}\"", now.size(),
        recorded.size(), n + 1, now[n].role, around(now[n].content, 0));
  return fmt::format(
      "the request has {} messages, the recording {}; message {} ({}) is missing: \"{}\"",
      now.size(), recorded.size(), n + 1, recorded[n].role, around(recorded[n].content, 0));
}

class ReplayClient : public ModelClient {
 public:
  ReplayClient(ModelSpec spec, std::vector<TranscriptEntry> entries, const ClientOptions& options)
      : spec_(std::move(spec)),
        entries_(std::move(entries)),
        used_(entries_.size(), false),
        options_(options) {}

  std::string name() const override { return spec_.text; }

  LlmResult complete(const ChatRequest& request, const StreamCallback* on_delta) override {
    if (options_.cancel && options_.cancel->load())
      return LlmError{ErrorKind::cancelled, fmt::format("replay {}: cancelled", spec_.model)};
    const TranscriptEntry* entry = nullptr;
    {
      std::lock_guard lock(mutex_);
      std::int64_t call = ++calls_;
      while (next_ < entries_.size() && used_[next_]) ++next_;
      if (next_ >= entries_.size())
        return LlmError{
            ErrorKind::diverged,
            fmt::format(
                "replay {}: call {} ({}) has no recorded reply: the recording holds {} calls",
                spec_.model, call, request.agent_role, entries_.size())};
      std::size_t pick = next_;
      if (!same(entries_[pick].request.messages, request.messages)) {
        pick = entries_.size();
        for (std::size_t i = next_ + 1; i < entries_.size() && pick == entries_.size(); ++i)
          if (!used_[i] && same(entries_[i].request.messages, request.messages)) pick = i;
        if (pick == entries_.size())
          return LlmError{
              ErrorKind::diverged,
              fmt::format(
                  "replay {}: call {} ({}) diverged from the recording (recorded call {}, {}): {}",
                  spec_.model, call, request.agent_role, entries_[next_].call,
                  entries_[next_].request.agent_role,
                  first_difference(entries_[next_].request.messages, request.messages))};
      }
      used_[pick] = true;
      entry = &entries_[pick];
    }
    if (entry->error) {
      LlmError e = *entry->error;
      e.message = fmt::format("replay {} (recorded error): {}", spec_.model, e.message);
      return e;
    }
    ChatReply reply = entry->reply;
    reply.provider = "replay";
    reply.model = spec_.model;
    reply.latency_ms = 0;
    reply.cost_usd = 0;
    reply.cached = false;
    if (on_delta && !reply.reasoning.empty()) (*on_delta)({.reasoning = reply.reasoning});
    if (on_delta && !reply.text.empty()) (*on_delta)({.text = reply.text});
    return reply;
  }

 private:
  ModelSpec spec_;
  std::vector<TranscriptEntry> entries_;
  std::vector<bool> used_;
  ClientOptions options_;
  std::mutex mutex_;
  std::size_t next_ = 0;
  std::int64_t calls_ = 0;
};

}  // namespace

LlmResultOf<std::unique_ptr<ModelClient>> make_replay_client(const ModelSpec& spec,
                                                             const ClientOptions& options) {
  auto entries = read_transcript(spec.model);
  if (!entries) return LlmError{ErrorKind::config, "replay: " + entries.error().message};
  return std::unique_ptr<ModelClient>(
      std::make_unique<ReplayClient>(spec, std::move(*entries), options));
}

}  // namespace kforge::llm
