// Transcript lines: writing, reading, and the JSON shape shared by both.
#include "kforge/llm/transcript.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <sstream>

#include "kforge/core/fs.h"

namespace kforge::llm {

using nlohmann::json;

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, ms);
}

json reply_to_json(const ChatReply& r) {
  return {{"text", r.text},
          {"reasoning", r.reasoning},
          {"finish_reason", r.finish_reason},
          {"provider", r.provider},
          {"model", r.model},
          {"usage",
           {{"input_tokens", r.usage.input_tokens},
            {"output_tokens", r.usage.output_tokens},
            {"cached_tokens", r.usage.cached_tokens},
            {"reasoning_tokens", r.usage.reasoning_tokens},
            {"estimated", r.usage.estimated}}}};
}

void reply_from_json(const json& j, ChatReply& r) {
  r.text = j.value("text", "");
  r.reasoning = j.value("reasoning", "");
  r.finish_reason = j.value("finish_reason", "");
  r.provider = j.value("provider", "");
  r.model = j.value("model", "");
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    r.usage.input_tokens = u->value("input_tokens", std::int64_t{0});
    r.usage.output_tokens = u->value("output_tokens", std::int64_t{0});
    r.usage.cached_tokens = u->value("cached_tokens", std::int64_t{0});
    r.usage.reasoning_tokens = u->value("reasoning_tokens", std::int64_t{0});
    r.usage.estimated = u->value("estimated", false);
  }
}

json to_json(const TranscriptEntry& e) {
  json messages = json::array();
  for (const auto& m : e.request.messages)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  const ChatReply& r = e.reply;
  json j = reply_to_json(r);
  j.update({
      {"time", e.time},
      {"session", e.session},
      {"call", e.call},
      {"role", e.request.agent_role},
      {"messages", std::move(messages)},
      {"params", {{"temperature", e.request.temperature}, {"max_tokens", e.request.max_tokens}}},
      {"latency_ms", r.latency_ms},
      {"cost_usd", r.cost_usd},
      {"priced", r.priced},
      {"cached", r.cached},
      {"error", nullptr},
  });
  if (e.error)
    j["error"] = {{"kind", error_kind_name(e.error->kind)}, {"message", e.error->message}};
  return j;
}

Result<TranscriptEntry> entry_from_json(const json& j, const std::string& where) {
  auto fail = [&](const std::string& what) { return Error{fmt::format("{}: {}", where, what)}; };
  if (!j.is_object()) return fail("not a JSON object");
  TranscriptEntry e;
  try {
    e.time = j.value("time", "");
    e.session = j.value("session", "");
    e.call = j.value("call", std::int64_t{0});
    e.request.agent_role = j.value("role", "");
    auto messages = j.find("messages");
    if (messages == j.end() || !messages->is_array()) return fail("no \"messages\" array");
    for (const auto& m : *messages)
      e.request.messages.push_back(
          {m.at("role").get<std::string>(), m.at("content").get<std::string>()});
    if (auto p = j.find("params"); p != j.end() && p->is_object()) {
      e.request.temperature = p->value("temperature", e.request.temperature);
      e.request.max_tokens = p->value("max_tokens", e.request.max_tokens);
    }
    ChatReply& r = e.reply;
    reply_from_json(j, r);
    r.latency_ms = j.value("latency_ms", 0.0);
    r.cost_usd = j.value("cost_usd", 0.0);
    r.priced = j.value("priced", true);
    r.cached = j.value("cached", false);
    if (auto err = j.find("error"); err != j.end() && err->is_object()) {
      std::string kind = err->value("kind", "");
      auto k = parse_error_kind(kind);
      if (!k) return fail(fmt::format("unknown error kind '{}'", kind));
      e.error = LlmError{*k, err->value("message", "")};
    }
  } catch (const json::exception& ex) {
    return fail(fmt::format("unexpected field type: {}", ex.what()));
  }
  return e;
}

Result<std::unique_ptr<TranscriptWriter>> TranscriptWriter::open(
    const std::filesystem::path& path) {
  if (path.has_parent_path())
    if (auto made = core::ensure_dir(path.parent_path()); !made) return made.error();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{
        fmt::format("{}: cannot open for appending: {}", path.string(), std::strerror(errno))};
  return std::unique_ptr<TranscriptWriter>(new TranscriptWriter(fd, path));
}

TranscriptWriter::~TranscriptWriter() { ::close(fd_); }

Status TranscriptWriter::append(const TranscriptEntry& entry) {
  std::string line = to_json(entry).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mutex_);
  ssize_t n = ::write(fd_, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size()))
    return Error{fmt::format("{}: cannot append: {}", path_.string(),
                             n < 0 ? std::strerror(errno) : "short write")};
  return ok_status();
}

Result<std::vector<TranscriptEntry>> read_transcript(const std::filesystem::path& path) {
  auto text = core::read_text(path);
  if (!text) return text.error();
  std::vector<TranscriptEntry> entries;
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = fmt::format("{}:{}", path.string(), number);
    auto j = json::parse(line, nullptr, false);
    if (j.is_discarded())
      return Error{where + ": not valid JSON (is this a kforge transcript.jsonl?)"};
    auto e = entry_from_json(j, where);
    if (!e) return e.error();
    entries.push_back(std::move(*e));
  }
  return entries;
}

}  // namespace kforge::llm
