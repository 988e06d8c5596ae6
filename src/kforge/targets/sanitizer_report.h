#pragma once
// What a compute-sanitizer run said, read from the text it printed, and what that means for the
// verdict. Each tool ends with a summary of its own: memcheck, synccheck and initcheck with
// "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards displayed (E errors,
// W warnings)" (singular forms for 1). Every line of theirs starts with "========= ". A text with
// no summary is unreadable: kforge says so in a note and never fails a kernel on it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/eval/runner_failure.h"

namespace kforge::eval {

struct SanitizerReport {
  enum class Outcome { clean, found, unreadable };
  Outcome outcome = Outcome::unreadable;
  int errors = 0;    // what fails a kernel: memcheck's errors, racecheck's error-severity hazards
  int warnings = 0;  // racecheck's warning-severity hazards (possible races): a note
  // The first few findings in one line each, as the tool named them: "Invalid __global__ write
  // of size 4 bytes at add(float*)+0x90 in k.cu:7 (Address 0x7f00 is out of bounds)", "Race
  // reported between Write access at r(float*)+0x1c0 in r.cu:9 and Read access at ... in r.cu:11".
  std::vector<std::string> findings;
};

SanitizerReport read_sanitizer_report(std::string_view output);

// "1 error: Invalid __global__ write ...; ..." for a verdict's reason.
std::string describe_sanitizer_findings(const SanitizerReport& report);

// What one sanitizer pass decides: a verdict, or nothing and a note (either may be empty).
struct SanitizerPass {
  std::optional<Judgement> verdict;
  std::string note;
};

// `tool` ran the check (its failure, if it failed: `check`) and printed `output`. The tool's
// summary decides: errors are a runtime_error naming them; a clean summary lets a wrong result
// under the tool stand (incorrect, input_modified), while a call that failed or overran only
// under the tool is the tool's cost, a note. Unreadable output is a note whatever the check did.
SanitizerPass judge_sanitizer_pass(const std::string& tool, const std::string& output,
                                   const std::optional<Judgement>& check);

}  // namespace kforge::eval
