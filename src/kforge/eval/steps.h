#pragma once
// The steps of evaluate(), each in its own file, each returning a judgement only when it ends
// the evaluation (an empty optional means "go on").

#include <optional>
#include <vector>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/kernel_process.h"
#include "kforge/eval/paired_timing.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/eval/shared_set.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::eval {

// compile_step.cpp: the compiler's verdict and the link check.
std::optional<Judgement> judge_compile(const toolchain::CompileResult& compile);
std::optional<Judgement> judge_link(const toolchain::CompileResult& compile, toolchain::Role role,
                                    const std::vector<std::string>& allow_libs);

// check_step.cpp: one call per check set (kforge copies the outputs; nothing may run on or write
// late), then the comparison of those copies with the reference outputs.
std::optional<Judgement> run_check_calls(KernelProcess& p, std::uint32_t out, std::size_t sets,
                                         double timeout_s, std::vector<OutputSnapshot>& results,
                                         std::vector<double>* ms);
std::optional<Judgement> judge_check(const std::vector<OutputSnapshot>& results,
                                     const std::vector<SharedSet>& references,
                                     const core::ResolvedTask& task, const std::string& who,
                                     Evaluation& e);

// time_step.cpp: the statistics of a paired timing; the roofline, and the peaks checked against
// both sides' rates (a side faster than a peak marks the cached peaks stale); the load verdict.
std::optional<Judgement> judge_timing(const PairedTiming& timed, const core::ResolvedTask& task,
                                      Evaluation& e);
void rate_against_peaks(const core::ResolvedTask& task, const MachineProfile& m, Evaluation& e);
void judge_machine_load(const std::string& lock_contention, Evaluation& e);
// The partner's median against its quiet median on this machine (partner_pace.h): far slower marks
// the timing busy. `alone_ms` is the partner's median timed alone right after the pairs, with no
// candidate process alive: far faster than beside the kernel marks the timing busy too (the pairs
// measured a slowed partner), and only that median, from a timing quiet by every signal, is added
// to the store (a median from the pairs would let a kernel that slows its partner set its pace).
// `alone_pause_ms`: the pause before each of those calls (reported beside `alone_ms`).
void pace_the_partner(const MachineProfile& m, std::optional<double> alone_ms, Evaluation& e,
                      double alone_pause_ms = 0);

// The partner beside the kernel this many times slower than alone: the pairs are not its pace.
inline constexpr double kPartnerSlowerBesideKernel = 1.25;

}  // namespace kforge::eval
