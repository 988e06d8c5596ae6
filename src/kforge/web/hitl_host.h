#pragma once
// A hitl session served to pages: the one HitlSession engine on a thread of its own, with this
// class as its Human. What the session shows is kept as one transcript every page reads from an
// offset; a question (approve the plan? keep the change?) or an editor request is a gate with an
// id that exactly one answer opens, so two pages on one session see the same state and cannot
// both answer it. Commands run one at a time; a closed tab loses nothing (the state file is
// written after every command, as in the terminal).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/web/hitl_backend.h"

namespace kforge::web {

class HitlHost : public modes::Human {
 public:
  explicit HitlHost(std::unique_ptr<HitlBackend> backend);
  ~HitlHost() override;
  HitlHost(const HitlHost&) = delete;
  HitlHost& operator=(const HitlHost&) = delete;

  const std::string& run_id() const { return run_id_; }
  // Queues one command line; an error when one is running or the session has ended.
  Status submit(const std::string& line);
  // Answers gate `gate` with `text` (cancel: an editor closed without saving); an error when that
  // gate is not the one open (answered already, by this page or another).
  Status answer(std::int64_t gate, const std::string& text, bool cancel);
  // The session as a page shows it: transcript from byte `since`, the open gate, busy/ended, the
  // state (plan, versions, best), the prompt, and `version` for wait_change.
  nlohmann::json snapshot(std::size_t since) const;
  // Waits until the version passes `seen` or `timeout` ends; returns the current version.
  std::uint64_t wait_change(std::uint64_t seen, std::chrono::milliseconds timeout) const;
  bool ended() const;
  // Ends the session: open gates are cancelled, the command in flight finishes, the run is marked
  // finished. Called by the destructor.
  void stop();

  // modes::Human, called from the session's thread.
  void show(std::string_view text) override;
  std::optional<std::string> ask(const std::string& prompt) override;
  std::optional<std::string> edit(const std::string& text, const std::string& file_name) override;

 private:
  struct Gate {
    std::int64_t id = 0;
    std::string kind;  // "ask" or "edit"
    std::string prompt, text, file;
  };
  void work();
  std::optional<std::string> wait_gate(Gate gate);
  void changed();  // with mu_ held

  std::unique_ptr<HitlBackend> backend_;
  std::unique_ptr<modes::HitlSession> session_;
  std::string run_id_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::string transcript_;
  std::optional<Gate> gate_;
  std::int64_t next_gate_ = 1;
  std::optional<std::string> gate_answer_;
  bool gate_answered_ = false;
  std::deque<std::string> queue_;
  std::string running_;  // the command in flight ("" when idle)
  bool ended_ = false, stopping_ = false;
  std::uint64_t version_ = 0;
  nlohmann::json state_;
  std::string prompt_;
  std::thread worker_;
};

}  // namespace kforge::web
