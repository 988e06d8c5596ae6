#pragma once
// Parsers for what each role must answer. Each rejects a malformed reply with a sentence that
// says what was wrong; the agent sends that sentence back once as a corrective retry.

#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::agents {

struct Plan {
  std::string markdown;  // the whole plan
  std::string strategy;  // the ## Strategy section, for histories and graphs
};

struct FixSummary {
  std::string error, cause, fix;
};

struct Diagnosis {
  std::string bottleneck, diagnosis, suggestion;
  bool needs_improvement = true;
};

// The plan must contain every required section with some text in it.
Result<Plan> parse_plan(const std::string& reply);
// Exactly one ```cpp block (or ```cuda, or one fenced block) holding a kernel that includes
// kforge_task.h and defines `kernel` with `parameters` parameters. `fence` is the block's language
// the role was asked for, named in the corrections.
Result<std::string> parse_kernel(const std::string& reply, int parameters,
                                 const std::string& fence = "cpp");
// A kernel block followed by FIX_SUMMARY with error, cause and fix lines.
Result<std::pair<std::string, FixSummary>> parse_fix(const std::string& reply, int parameters,
                                                     const std::string& fence = "cpp");
// BOTTLENECK / DIAGNOSIS / NEEDS_IMPROVEMENT / SUGGESTION lines.
Result<Diagnosis> parse_diagnosis(const std::string& reply);

const std::vector<std::string>& required_plan_sections();

}  // namespace kforge::agents
