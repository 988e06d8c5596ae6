// The session's thread and the gates pages answer.
#include "kforge/web/hitl_host.h"

#include <fmt/format.h>

namespace kforge::web {

HitlHost::HitlHost(std::unique_ptr<HitlBackend> backend) : backend_(std::move(backend)) {
  run_id_ = backend_->run_id();
  session_ = backend_->make_session(*this);
  state_ = session_->state().to_json(/*with_sources=*/true);
  prompt_ = session_->prompt();
  worker_ = std::thread([this] { work(); });
}

HitlHost::~HitlHost() { stop(); }

void HitlHost::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    changed();
  }
  if (worker_.joinable()) worker_.join();
}

void HitlHost::changed() {
  ++version_;
  cv_.notify_all();
}

bool HitlHost::ended() const {
  std::lock_guard lock(mu_);
  return ended_;
}

Status HitlHost::submit(const std::string& line) {
  if (line.find('\n') != std::string::npos) return Error{"one command per line"};
  std::lock_guard lock(mu_);
  if (ended_ || stopping_) return Error{"the session has ended: resume it to go on"};
  if (!running_.empty() || !queue_.empty())
    return Error{
        fmt::format("'{}' is still running", running_.empty() ? queue_.front() : running_)};
  queue_.push_back(line);
  changed();
  return Ok{};
}

Status HitlHost::answer(std::int64_t gate, const std::string& text, bool cancel) {
  std::lock_guard lock(mu_);
  if (!gate_ || gate_->id != gate || gate_answered_)
    return Error{fmt::format("question {} is not open (answered already?)", gate)};
  gate_answered_ = true;
  if (!cancel) gate_answer_ = text;
  changed();
  return Ok{};
}

std::optional<std::string> HitlHost::wait_gate(Gate gate) {
  std::unique_lock lock(mu_);
  gate.id = next_gate_++;
  gate_ = gate;
  gate_answered_ = false;
  gate_answer_.reset();
  changed();
  cv_.wait(lock, [&] { return gate_answered_ || stopping_; });
  auto answer = gate_answered_ ? gate_answer_ : std::nullopt;
  if (answer && gate.kind == "ask") transcript_ += gate.prompt + *answer + "\n";
  gate_.reset();
  changed();
  return answer;
}

void HitlHost::show(std::string_view text) {
  std::lock_guard lock(mu_);
  transcript_ += text;
  changed();
}

std::optional<std::string> HitlHost::ask(const std::string& prompt) {
  return wait_gate({0, "ask", prompt, "", ""});
}

std::optional<std::string> HitlHost::edit(const std::string& text, const std::string& file_name) {
  return wait_gate({0, "edit", "edit " + file_name, text, file_name});
}

void HitlHost::work() {
  for (;;) {
    std::string line;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (stopping_) break;
      line = queue_.front();
      queue_.pop_front();
      running_ = line;
      transcript_ += prompt_ + line + "\n";
      changed();
    }
    // Ctrl-C is left set (unlike the terminal's REPL): in the server it stops everything.
    bool go_on = session_->execute(line);
    std::lock_guard lock(mu_);
    running_.clear();
    state_ = session_->state().to_json(/*with_sources=*/true);
    prompt_ = session_->prompt();
    if (!go_on) {
      ended_ = true;
      transcript_ += fmt::format(
          "session {} saved; resume it from the page or with: kforge hitl "
          "--resume {}\n",
          run_id_, run_id_);
      changed();
      break;
    }
    changed();
  }
  backend_->finish();
  std::lock_guard lock(mu_);
  ended_ = true;
  changed();
}

nlohmann::json HitlHost::snapshot(std::size_t since) const {
  std::lock_guard lock(mu_);
  nlohmann::json gate = nullptr;
  if (gate_ && !gate_answered_)
    gate = {{"id", gate_->id},
            {"kind", gate_->kind},
            {"prompt", gate_->prompt},
            {"text", gate_->text},
            {"file", gate_->file}};
  since = std::min(since, transcript_.size());
  return {{"run_id", run_id_},
          {"version", version_},
          {"offset", transcript_.size()},
          {"text", transcript_.substr(since)},
          {"gate", gate},
          {"running", running_.empty() && !queue_.empty() ? queue_.front() : running_},
          {"ended", ended_},
          {"prompt", prompt_},
          {"state", state_}};
}

std::uint64_t HitlHost::wait_change(std::uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return version_ != seen || stopping_; });
  return version_;
}

}  // namespace kforge::web
