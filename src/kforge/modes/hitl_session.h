#pragma once
// The human-in-the-loop session behind `kforge hitl`: the same sub-agents and steps as auto, run
// one at a time on a human's command, with approval gates after a plan and after a proposed
// change. Each kernel version is a node of the session's run in the store (RunLedger: its source,
// the version it came from, the judge's verdict and times), as an auto run's iterations are; the
// rest (plan, which version is current, the last failure, the debugger's memory, the best kernel)
// is written to .kforge/sessions/<id>/state.json after every command, so --resume restores it
// exactly. Nothing is compiled, run or written outside the session folder unless a command asks
// for it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/agents/agents.h"
#include "kforge/modes/iteration_steps.h"
#include "kforge/modes/run_journal.h"

namespace kforge::modes {

// How the session talks to its human: output, one-line answers at gates, and an editor.
class Human {
 public:
  virtual ~Human() = default;
  virtual void show(std::string_view text) = 0;
  virtual std::optional<std::string> ask(const std::string& prompt) = 0;  // nullopt at end of input
  // Opens `text` in an editor; returns the edited text, or nullopt when the editor failed.
  virtual std::optional<std::string> edit(const std::string& text,
                                          const std::string& file_name) = 0;
};

struct KernelVersion {
  int number = 0;
  std::string source;
  std::string origin;  // "implement", "fix: …", "ask: …", "edit", "tune: …", "revert to 2"
  int parent = 0;      // the version it came from (0 = none: the first)
  // Its node in the store (0 = not recorded yet: state.json then keeps the source inline and the
  // next open records it, see restore_versions).
  std::int64_t node = 0;
};

struct HitlState {
  std::string run_id, task, size;
  std::string model;                  // --model the session started with ("" = from kforge.toml)
  std::string plan;                   // the approved plan ("" = none)
  std::vector<std::string> rejected;  // reasons given for rejected plans (for the planner)
  std::vector<KernelVersion> versions;
  int current = 0;           // version number; 0 = no kernel yet
  std::string last_failure;  // the last failed compile/check/time, as the debugger reads it
  std::vector<agents::DebugAttempt> attempts;  // the debugger's memory since the last success
  std::optional<eval::Evaluation> best;        // the fastest correct timed version
  int best_version = 0;
  int passed_version = 0;  // the latest version that passed the check (0 = none)
  std::string
      partner;  // whom every kernel is paired with (--beat): libtorch or a peer ("" = libtorch)
  // The target the kernels are written for (--target: "" = cpp) and its --dtype; chosen when the
  // session starts and kept by every resume, like the partner.
  std::string target;
  std::string dtype = "f32";
  double baseline_ms = 0;            // the latest measurement of the baseline
  std::string baseline_when;         // which one that was ("" = measured alone at the start)
  std::vector<std::string> history;  // one line per command and its outcome

  // state.json's form: a version recorded as a node is named by it, its source left to the store.
  // `with_sources`: every version's source too (what a page showing the session needs).
  nlohmann::json to_json(bool with_sources = false) const;
  static HitlState from_json(const nlohmann::json& j);
};

class HitlSession {
 public:
  HitlSession(const eval::TaskContext& ctx, const eval::MachineProfile& machine,
              agents::AgentEnv& agents, RunJournal& journal, eval::EvalOptions eval, Human& human,
              HitlState state, target::BoundTarget target = {});

  // Runs one command line ("plan use AVX2", "check", …). Returns false for `quit` / `accept`.
  bool execute(const std::string& line);
  const HitlState& state() const { return state_; }
  std::string prompt() const;  // "12p_rmsnorm v3 $0.0123> "

 private:
  void plan(const std::string& hint);
  void implement();
  void ask(const std::string& instruction);
  void compile();
  void check();
  void time(bool profile);
  void tune();
  void fix();
  void edit_plan();
  void edit_kernel();
  void diff(const std::string& args);
  void show_version(const std::string& arg);
  void revert(const std::string& arg);
  bool accept(const std::string& path);
  void status();
  void cost();
  void help();

  // Shows the proposed source as a diff against the current one and keeps it if approved.
  bool propose(const std::string& source, const std::string& origin);
  // A new current version grown from version `parent` (0: none), recorded as a node of the run.
  void add_version(std::string source, const std::string& origin, int parent);
  // Edits version v's node in the store (read, changed, written back); a failure is shown.
  void update_node(const KernelVersion& v, const std::function<void(store::NodeRecord&)>& change);
  void judged(const eval::Evaluation& e);  // the judge's word on the current version, in its node
  // Whether the current version, timed correct, takes the best's place: only by beating the best
  // side by side in one run (as in auto and search), never on medians from different runs.
  bool beats_best(const eval::EvalOptions& timing);
  void mark_best_node();  // the best version's node becomes the run's best
  void charge_tokens(const llm::SessionTotals& before, bool to_next_version);
  const KernelVersion* version(int n) const;
  std::string current_source() const;
  bool need_kernel();
  void record(const std::string& event);
  void save();
  void keep(const std::string& relative,
            const std::string& content);  // writes a session file; a failure is shown
  void report_model_error(const llm::LlmError& e);
  agents::LoopState loop_state() const;
  StepEnv step_env();
  std::string kernel_file() const { return target_.kernel_file(); }
  std::string extension() const;  // ".cpp", ".cu", ".py"

  const eval::TaskContext& ctx_;
  const eval::MachineProfile& machine_;
  agents::AgentEnv agents_;  // a copy whose stream callback shows replies as they arrive
  llm::StreamCallback stream_;
  std::size_t streamed_ = 0;  // bytes shown by stream_ during the current call
  RunJournal& journal_;
  eval::EvalOptions eval_;
  Human& human_;
  HitlState state_;
  target::BoundTarget target_;  // the session's kernels' target (default: cpp)
  PhaseClock clock_;
  std::map<int, std::string>
      tuning_;                  // the tuner's table of each version it produced, for the profiler
  llm::SessionTotals unspent_;  // model use not yet counted on a version's node (a plan's)
};

// A unified diff of two texts (through diff(1)); "" when they are equal.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& label_a,
                         const std::string& label_b, const std::filesystem::path& scratch);

}  // namespace kforge::modes
