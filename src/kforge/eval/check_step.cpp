// The check: every call's inputs intact, nothing left running, every output within tolerance
// of the reference on every secret input set.
#include <fmt/format.h>

#include "kforge/eval/steps.h"

namespace kforge::eval {
namespace {

// Background CPU (in a 30 ms idle window) above this, with threads the kernel left behind,
// means work still running after return.
constexpr double kBackgroundCpuMs = 10.0;

std::optional<Judgement> judge_calls(const nlohmann::json& report, const char* who, int threads_before, int threads_after, Evaluation& e,
                                     bool record) {
  const auto& calls = report.at("calls");
  for (std::size_t k = 0; k < calls.size(); ++k) {
    if (record) e.check_ms.push_back(calls[k].value("ms", 0.0));
    if (!calls[k].value("inputs_intact", true))
      return Judgement{Verdict::input_modified, fmt::format("{}: the inputs changed during check set {} (inputs are read-only)", who, k + 1)};
    if (calls[k].value("late_write", false))
      return Judgement{Verdict::sandbox_violation,
                       fmt::format("{}: the output changed after the call for check set {} had returned: work was left running in the "
                                   "background (a kernel must finish before it returns)",
                                   who, k + 1)};
  }
  double background = report.value("background_cpu_ms", 0.0);
  if (background > kBackgroundCpuMs && threads_after > threads_before)
    return Judgement{Verdict::sandbox_violation,
                     fmt::format("{}: {} thread(s) it started kept running after it returned ({:.0f} ms of CPU in a 30 ms idle window)", who,
                                 threads_after - threads_before, background)};
  return std::nullopt;
}

std::optional<Judgement> compare_sets(const SharedSet& results, std::size_t first_copy, const std::vector<SharedSet>& references,
                                      const core::ResolvedTask& task, const char* who, Evaluation& e) {
  const double rtol = task.rtol, atol = task.atol;
  for (std::size_t k = 0; k < references.size(); ++k) {
    MismatchReport report;
    report.check_set = static_cast<int>(k + 1);
    report.rtol = rtol;
    report.atol = atol;
    for (std::size_t i = 0; i < task.outputs.size(); ++i) {
      auto m = analyze_output(task.outputs[i], results.tensor(i, first_copy + k), references[k].tensor(i), rtol, atol);
      if (m.bad > 0) report.outputs.push_back(std::move(m));
    }
    if (!report.outputs.empty()) {
      const auto& m = report.outputs.front();
      std::string reason = fmt::format("{}: output '{}' is wrong in {} of {} elements on check input set {}: {}", who, m.output, m.bad, m.numel,
                                       k + 1, m.pattern);
      e.mismatch = std::move(report);
      return Judgement{Verdict::incorrect, reason};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Judgement> judge_check(const nlohmann::json& checked, const SharedSet& results, const std::vector<SharedSet>& references,
                                     const core::ResolvedTask& task, Evaluation& e) {
  int before = checked.value("threads_before", 0), after = checked.value("threads_after", 0);
  if (auto j = judge_calls(checked.at("candidate"), "the kernel", before, after, e, true)) return j;
  if (checked.contains("partner"))
    if (auto j = judge_calls(checked.at("partner"), "the --against kernel", before, after, e, false)) return j;
  if (auto j = compare_sets(results, 0, references, task, "the kernel", e)) return j;
  if (checked.contains("partner"))
    if (auto j = compare_sets(results, references.size(), references, task, "the --against kernel", e)) return j;
  return std::nullopt;
}

}  // namespace kforge::eval
