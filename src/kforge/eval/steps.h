#pragma once
// The steps of evaluate(), each in its own file, each returning a judgement only when it ends
// the evaluation (an empty optional means "go on").

#include <optional>
#include <vector>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/eval/shared_set.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::eval {

// compile_step.cpp: the compiler's verdict and the link check.
std::optional<Judgement> judge_compile(const toolchain::CompileResult& compile);
std::optional<Judgement> judge_link(const toolchain::CompileResult& compile, toolchain::Role role, const std::vector<std::string>& allow_libs);

// check_step.cpp: the runner's {"op":"checked"} report against the reference outputs.
// `results` holds the snapshots (candidate sets first, then the --against kernel's).
std::optional<Judgement> judge_check(const nlohmann::json& checked, const SharedSet& results, const std::vector<SharedSet>& references,
                                     const core::ResolvedTask& task, Evaluation& e);

// time_step.cpp: the runner's {"op":"timed"} report, the parent's own clock, the statistics.
std::optional<Judgement> judge_timing(const nlohmann::json& timed, double parent_wall_s, const core::ResolvedTask& task, Evaluation& e);

}  // namespace kforge::eval
