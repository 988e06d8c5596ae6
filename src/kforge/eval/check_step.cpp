// The check: one call per secret input set, each output copied by kforge the moment the call
// returns, nothing left running, nothing written late, every output within tolerance of the
// reference on every set. Inputs are sealed (F_SEAL_WRITE): no process can change them, and an
// attempt faults (reported as input_modified).
#include <fmt/format.h>

#include <random>

#include "kforge/eval/steps.h"

namespace kforge::eval {
namespace {

std::optional<Judgement> compare_sets(const std::vector<OutputSnapshot>& results,
                                      const std::vector<SharedSet>& references,
                                      const core::ResolvedTask& task, const std::string& who,
                                      Evaluation& e) {
  const double rtol = task.rtol, atol = task.atol;
  for (std::size_t k = 0; k < references.size(); ++k) {
    MismatchReport report;
    report.check_set = static_cast<int>(k + 1);
    report.rtol = rtol;
    report.atol = atol;
    for (std::size_t i = 0; i < task.outputs.size(); ++i) {
      auto m = analyze_output(task.outputs[i], results[k][i].data(), references[k].tensor(i), rtol,
                              atol);
      if (m.bad > 0) report.outputs.push_back(std::move(m));
    }
    if (!report.outputs.empty()) {
      const auto& m = report.outputs.front();
      std::string reason =
          fmt::format("{}: output '{}' is wrong in {} of {} elements on check input set {}: {}",
                      who, m.output, m.bad, m.numel, k + 1, m.pattern);
      e.mismatch = std::move(report);
      return Judgement{Verdict::incorrect, reason};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Judgement> run_check_calls(KernelProcess& p, std::uint32_t out, std::size_t sets,
                                         double timeout_s, std::vector<OutputSnapshot>& results,
                                         std::vector<double>* ms) {
  std::mt19937_64 rng{std::random_device{}()};
  results.resize(sets);
  for (std::size_t k = 1; k <= sets; ++k) {
    auto c = p.call(static_cast<std::uint32_t>(k), out, timeout_s, fmt::format("check set {}", k));
    if (c.failure) return c.failure;
    if (ms) ms->push_back(c.ms);
    p.snapshot(out, results[k - 1], rng);
    if (!p.settle(1.0))
      return Judgement{Verdict::sandbox_violation,
                       fmt::format("{}: threads it started kept running after its call on check "
                                   "set {} returned (a kernel must finish "
                                   "before it returns)",
                                   p.who(), k)};
    if (!p.unchanged_since(out, results[k - 1]))
      return Judgement{Verdict::sandbox_violation,
                       fmt::format("{}: the output changed after the call for check set {} had "
                                   "returned: work was left running in the "
                                   "background (a kernel must finish before it returns)",
                                   p.who(), k)};
  }
  return std::nullopt;
}

std::optional<Judgement> judge_check(const std::vector<OutputSnapshot>& results,
                                     const std::vector<SharedSet>& references,
                                     const core::ResolvedTask& task, const std::string& who,
                                     Evaluation& e) {
  return compare_sets(results, references, task, who, e);
}

}  // namespace kforge::eval
