#pragma once
// The verdicts of the evaluation contract. A failing kernel is a verdict, not an exception.

#include <optional>
#include <string_view>

namespace kforge::eval {

enum class Verdict {
  correct,
  incorrect,
  compile_error,
  link_refused,
  runtime_error,
  timeout,
  sandbox_violation,
  input_modified,
  // Not a judgement of the kernel: this machine cannot run its target (no CUDA device). The
  // kernel compiled and passed the link check; nothing was checked or timed.
  no_device,
  // Not a judgement of the kernel either: Ctrl-C stopped the evaluation (EvalOptions::cancel)
  // before it could judge; the reason says in which step.
  interrupted
};

std::string_view verdict_name(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view name);

}  // namespace kforge::eval
