// The statistics of a paired timing, every sample taken on kforge's clock.
#include <fmt/format.h>

#include "kforge/eval/python_kernel.h"
#include "kforge/eval/roofline.h"
#include "kforge/eval/steps.h"

namespace kforge::eval {

std::optional<Judgement> judge_timing(const PairedTiming& timed, const core::ResolvedTask& task,
                                      Evaluation& e) {
  if (timed.failure) return timed.failure;
  if (timed.candidate_ms.empty())
    return Judgement{Verdict::runtime_error, "the timing produced no samples"};
  e.warmup_pairs = timed.warmup_pairs;
  e.audited_pairs = timed.audited_pairs;
  e.untimed_pairs = timed.untimed_pairs;
  e.candidate = summarize(timed.candidate_ms);
  if (!timed.partner_ms.empty()) {
    e.baseline = summarize(timed.partner_ms);
    e.speedup = summarize_ratios(timed.candidate_ms, timed.partner_ms);
  }
  double seconds = e.candidate->median_ms / 1e3;
  if (seconds > 0) {
    e.gflops = task.flops / seconds / 1e9;
    e.gbps = task.bytes / seconds / 1e9;
  }
  return std::nullopt;
}

namespace {

AchievedRates rates_of(const std::string& who, double median_ms, const core::ResolvedTask& task,
                       int threads) {
  const double seconds = median_ms / 1e3;
  return {who, threads, seconds > 0 ? task.flops / seconds / 1e9 : 0,
          seconds > 0 ? task.bytes / seconds / 1e9 : 0,
          static_cast<double>(task.input_bytes() + task.output_bytes())};
}

}  // namespace

void rate_against_peaks(const core::ResolvedTask& task, const MachineProfile& m, Evaluation& e) {
  if (!e.candidate) return;
  auto kernel = rates_of("the kernel", e.candidate->median_ms, task, e.threads);
  e.roofline =
      roofline_fraction(task.flops, task.bytes, e.candidate->median_ms / 1e3, m, e.threads);
  e.roofline_note = roofline_note(e.roofline, kernel, m);
  // Either side of the pair faster than a peak proves the peak low: the next run re-measures it.
  std::vector<AchievedRates> sides = {kernel};
  const bool against = e.partner.rfind("against ", 0) == 0;
  if (e.baseline)
    sides.push_back(rates_of(against ? "the --against kernel" : "the " + e.partner,
                             e.baseline->median_ms, task, e.threads));
  for (const auto& side : sides)
    if (auto marked = note_achieved_rates(side, m); marked && *marked) {
      e.roofline_note =
          "peaks measured low (" + side.who + " beat them): re-measured on the next run";
      break;
    }
}

void judge_machine_load(const std::string& lock_contention, Evaluation& e) {
  auto verdict = judge_load(e.load_samples, e.threads);
  e.load_average = verdict.load_1min;
  e.machine_busy = verdict.busy || !lock_contention.empty();
  e.busy_reason = verdict.reason;
  if (!lock_contention.empty())
    e.busy_reason += (e.busy_reason.empty() ? "" : "; ") + lock_contention;
  if (e.machine_busy && e.quiet_wait.waited_s > 0 && !e.quiet_wait.quiet)
    e.busy_reason +=
        fmt::format(" (still busy after waiting {:.0f} s for quiet)", e.quiet_wait.waited_s);
}

namespace {

// The name a partner's pace is kept under, or none for a partner that is not the same code every
// time: an --against kernel changes with the user, and a peer is the same only at one release of
// its framework (so the release is part of its name) and only when it ran correctly.
std::optional<std::string> paced_name(const Evaluation& e) {
  if (e.partner == "baseline" || e.partner == "reference") return e.partner;
  if (is_peer(e.partner) && !e.partner_failed && !e.partner_version.empty())
    return fmt::format("{} ({})", e.partner, e.partner_version);
  return std::nullopt;
}

}  // namespace

void pace_the_partner(const MachineProfile& m, std::optional<double> alone_ms, Evaluation& e,
                      double alone_pause_ms) {
  const auto name = paced_name(e);
  if (!e.baseline || !name) return;
  e.partner_pace.alone_ms = alone_ms.value_or(0);
  e.partner_pace.alone_pause_ms = alone_pause_ms;
  if (alone_ms && *alone_ms > 0 && e.baseline->median_ms > kPartnerSlowerBesideKernel * *alone_ms) {
    e.machine_busy = true;
    e.busy_reason +=
        (e.busy_reason.empty() ? "" : "; ") +
        fmt::format(
            "the {} ran {:.2f}x slower beside the kernel ({:.4g} ms) than "
            "alone right after ({:.4g} ms)",
            e.partner, e.baseline->median_ms / *alone_ms, e.baseline->median_ms, *alone_ms);
  }
  const auto file = partner_pace_file(m);
  if (file.empty()) return;
  const auto entry = partner_pace_entry(e.task_id, e.size, e.threads, *name);
  auto record = read_partner_pace(file);
  if (!record) {
    e.partner_pace.reason = record.error().message;  // the signal is missing, the timing stands
    return;
  }
  e.partner_pace = judge_partner_pace(quiet_pace(*record, entry), e.baseline->median_ms, e.partner);
  e.partner_pace.alone_ms = alone_ms.value_or(0);
  e.partner_pace.alone_pause_ms = alone_pause_ms;
  if (e.partner_pace.busy) {
    e.machine_busy = true;
    e.busy_reason += (e.busy_reason.empty() ? "" : "; ") + e.partner_pace.reason;
  } else if (!e.machine_busy && alone_ms && *alone_ms > 0) {
    if (auto st = record_quiet_partner(file, entry, *alone_ms); !st)
      e.partner_pace.reason = st.error().message;
  }
}

}  // namespace kforge::eval
