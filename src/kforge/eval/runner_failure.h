#pragma once
// Turns what went wrong inside the runner into a verdict with a sentence: a fault message
// (crash, forbidden system call, write to an input), an error message, a silent death, a timeout.

#include <atomic>
#include <string>
#include <string_view>

#include "kforge/eval/evaluation.h"
#include "kforge/eval/runner_process.h"

namespace kforge::eval {

struct Judgement {
  Verdict verdict;
  std::string reason;
};

// A message from the runner where kforge expected none or another: a fault report, an error, or
// anything else (a kernel may write to its channel). `phase` is what kforge had asked for. Whatever
// the message says, the verdict is a failure: the runner can only worsen a verdict.
Judgement judge_runner_message(const nlohmann::json& body, const std::string& phase);
// The message's "op" when it is a string, else "".
std::string message_op(const nlohmann::json& body);
// The runner stopped talking: `why` is "timeout" or "closed"; `exit` how it ended; `phase` what
// it was doing ("the check", "timing"); `output` its last words.
Judgement judge_runner_silence(const std::string& why, const RunnerExit& exit,
                               const std::string& phase, double timeout_s,
                               const std::string& output);

// A step that failed because Ctrl-C stopped it (killed its process, or the compiler) is no verdict
// on the kernel: `j` becomes "interrupted (Ctrl-C) while <step>" when `cancel` is set and `j` is
// not correct; else it stands. The cpu and cuda judges both end through this.
Judgement unless_interrupted(Judgement j, const std::atomic<bool>* cancel, std::string_view step);

}  // namespace kforge::eval
