// Mapping runner failures to verdicts.
#include "kforge/eval/runner_failure.h"

#include <fmt/format.h>
#include <signal.h>

#include <cstring>

#include "kforge/core/utf8.h"

namespace kforge::eval {
namespace {

std::string last_lines(const std::string& text, std::size_t max_chars = 600) {
  if (text.size() <= max_chars) return text;
  return "…" + text.substr(text.size() - max_chars);
}

std::string with_output(std::string reason, const std::string& output) {
  std::string tail = core::valid_utf8(last_lines(output));  // the cut may split a character
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (!tail.empty()) reason += "; it printed: " + tail;
  return reason;
}

}  // namespace

std::string message_op(const nlohmann::json& body) {
  auto it = body.find("op");
  return it != body.end() && it->is_string() ? it->get<std::string>() : "";
}

Judgement judge_runner_message(const nlohmann::json& body, const std::string& phase) {
  // Every field is the kernel's to forge: read them as text or numbers, never trust their types.
  auto text = [&](const char* key) {
    auto it = body.find(key);
    std::string v = it != body.end() && it->is_string() ? it->get<std::string>() : "";
    return v.size() > 500 ? core::valid_utf8(v.substr(0, 500)) + "…" : v;
  };
  auto it = body.find("signal");
  int sig = it != body.end() && it->is_number_integer() ? it->get<int>() : 0;
  std::string op = text("op");
  std::string where = phase.empty() ? "" : fmt::format(" during {}", phase);
  if (op == "error")
    return {Verdict::runtime_error,
            text("message").empty() ? "the runner reported an error" + where : text("message")};
  if (op != "fault")
    return {Verdict::sandbox_violation,
            fmt::format("an unexpected message on the runner's channel{} (op '{}'): a kernel must "
                        "not write to descriptor 3",
                        where, op)};
  std::string category = text("category"), detail = text("detail");
  if (category == "syscall")
    return {
        Verdict::sandbox_violation,
        fmt::format("{}{}: kernels may compute, allocate memory and start threads, nothing else",
                    detail, where)};
  // The Python worker's refusals of a Pallas kernel: no pallas_call, a host callback, a data race
  // found by the interpreter (kforge_worker.py says which).
  if (category == "refused") return {Verdict::sandbox_violation, "refused: " + detail};
  if (category == "input_write")
    return {Verdict::input_modified, fmt::format("{}{}: inputs are read-only", detail, where)};
  std::string what = sig == SIGSEGV        ? "segmentation fault"
                     : sig == SIGBUS       ? "bus error"
                     : sig == SIGFPE       ? "arithmetic exception"
                     : sig == SIGILL       ? "illegal instruction"
                     : sig > 0 && sig < 65 ? strsignal(sig)
                                           : "a crash";
  return {Verdict::runtime_error, fmt::format("{}{}: {}", what, where, detail)};
}

Judgement judge_runner_silence(const std::string& why, const RunnerExit& exit,
                               const std::string& phase, double timeout_s,
                               const std::string& output) {
  if (why == "timeout")
    return {
        Verdict::timeout,
        fmt::format(
            "no answer within {:.0f} s during {} (an infinite loop, or far too slow for this size)",
            timeout_s, phase)};
  if (!exit.exited) {
    int sig = exit.signal;
    if (sig == SIGXCPU)
      return {Verdict::timeout, fmt::format("the CPU-time limit was exceeded during {}", phase)};
    if (sig == SIGSYS)
      return {
          Verdict::sandbox_violation,
          with_output(fmt::format("killed for a forbidden system call during {}", phase), output)};
    if (sig == SIGABRT) {
      std::string hint = output.find("bad_alloc") != std::string::npos
                             ? " (an allocation failed: the memory limit was reached)"
                             : "";
      return {Verdict::runtime_error,
              with_output(fmt::format("the kernel aborted during {}{}", phase, hint), output)};
    }
    // SIGKILL says nothing of who sent it: another process, the kernel itself, or the system's
    // out-of-memory killer (kforge's own memory limit makes allocations fail instead).
    if (sig == SIGKILL)
      return {Verdict::runtime_error,
              with_output(fmt::format("killed by signal 9 (SIGKILL) during {}: sent by another "
                                      "process or by the system's out-of-memory killer",
                                      phase),
                          output)};
    return {Verdict::runtime_error,
            with_output(fmt::format("{} during {}", exit.describe(), phase), output)};
  }
  return {Verdict::runtime_error,
          with_output(
              fmt::format(
                  "the process ended with exit status {} during {}: a kernel must return, not exit",
                  exit.code, phase),
              output)};
}

Judgement unless_interrupted(Judgement j, const std::atomic<bool>* cancel, std::string_view step) {
  if (j.verdict == Verdict::correct || !cancel || !cancel->load()) return j;
  return {Verdict::interrupted, fmt::format("interrupted (Ctrl-C) while {}", step)};
}

}  // namespace kforge::eval
