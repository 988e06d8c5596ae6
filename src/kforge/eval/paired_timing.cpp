// The pair loop and its stopping rule.
#include "kforge/eval/paired_timing.h"

#include <fmt/format.h>
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <cmath>

#include "kforge/core/compare.h"
#include "kforge/core/dtype.h"
#include "kforge/core/input_fill.h"
#include "kforge/core/median_ci.h"
#include "kforge/eval/timing_stats.h"

namespace kforge::eval {
namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void sleep_until_ms(double when_ms) {
  const double left_ms = when_ms - now_s() * 1e3;
  if (left_ms <= 0) return;
  timespec ts{static_cast<time_t>(left_ms / 1e3), static_cast<long>(std::fmod(left_ms, 1e3) * 1e6)};
  nanosleep(&ts, nullptr);
}

// kforge's own OpenMP workers (perturbation, comparison) would spin on the cores the next timed
// call needs: inside the loop this thread runs its parallel regions on one thread.
struct SerialRegions {
  int saved = omp_get_max_threads();
  SerialRegions() { omp_set_num_threads(1); }
  ~SerialRegions() { omp_set_num_threads(saved); }
};

Judgement late_write(const KernelProcess& p, int pair) {
  return {Verdict::sandbox_violation,
          fmt::format("{}: its outputs changed after its call on timing pair {} had returned (work "
                      "left running in the background)",
                      p.who(), pair)};
}

// `cand[i]` and `partner[i]` hold `bytes[i]` bytes of output i: all of it, or the same sampled
// lines of both.
std::optional<Judgement> compare_pair(const std::vector<const unsigned char*>& cand,
                                      const std::vector<const unsigned char*>& partner,
                                      const std::vector<std::size_t>& bytes,
                                      const core::ResolvedTask& task,
                                      const std::string& partner_name, const std::string& where) {
  for (std::size_t i = 0; i < task.outputs.size(); ++i) {
    const auto& t = task.outputs[i];
    const auto numel = static_cast<std::int64_t>(bytes[i] / core::dtype_size(t.dtype));
    auto c =
        core::compare_buffers(t.dtype, cand[i], partner[i], numel, 2 * task.rtol, 2 * task.atol);
    if (!c.ok())
      return Judgement{
          Verdict::incorrect,
          fmt::format("{} (inputs perturbed since the previous call) output '{}' differs "
                      "from {} in {} of {} "
                      "elements (got {:.7g}, {} gave {:.7g}): does the kernel reuse results across "
                      "calls?",
                      where, t.name, partner_name, c.bad, c.numel, c.worst_actual, partner_name,
                      c.worst_expected)};
  }
  return std::nullopt;
}

std::vector<const unsigned char*> pointers(const OutputSnapshot& s) {
  std::vector<const unsigned char*> p;
  for (const auto& o : s) p.push_back(o.data());
  return p;
}

std::vector<std::size_t> sizes(const OutputSnapshot& s) {
  std::vector<std::size_t> n;
  for (const auto& o : s) n.push_back(o.size());
  return n;
}

}  // namespace

bool timing_done(const PairedTiming& t, const PairedTimingRequest& req, double spent_s) {
  const int n = static_cast<int>(t.candidate_ms.size());
  if (n >= req.max_pairs) return true;
  if (n < req.min_pairs) return false;
  const bool paired = !t.partner_ms.empty();
  std::vector<double> ratios;
  for (int i = 0; paired && i < n; ++i)
    ratios.push_back(t.partner_ms[i] / std::max(t.candidate_ms[i], 1e-9));
  const auto& series = paired ? ratios : t.candidate_ms;
  // At the budget, stop once the median is known to ±2%; a noisy pair series may take up to
  // three budgets (an A/A run with 30 pairs of a memory-bound kernel missed 1.00 by 4%).
  if (spent_s >= req.budget_s &&
      (spent_s >= 3 * req.budget_s || median_ci_relative(series) <= 0.02))
    return true;
  // Early once known to ±1%: half the spread between runs (docs/timing.md, "Between runs"), so
  // a narrower interval from more pairs of one run would not make the figure surer. Never before a
  // tenth of the budget: a longer budget asks for a longer look.
  return n >= 30 && n % 10 == 0 && spent_s >= req.budget_s / 10 &&
         median_ci_relative(series) < kEarlyStopCi;
}

double even_pause_ms(double other_natural_ms) {
  // Past a millisecond a processor is idle either way: a longer pause (an audit's copies) is not
  // matched on the other side, whose pair is left out of the timing anyway.
  constexpr double kShortestMs = 0.1, kLongestMs = 1.0;
  return std::min(kLongestMs, std::max(kShortestMs, other_natural_ms));
}

double median_ci_relative(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double median = v[v.size() / 2];
  auto [lo, hi] = core::median_ci95(v);
  return median > 0 ? (hi - lo) / (2 * median) : 1.0;
}

TimingInputs::TimingInputs(SharedSet& set, const core::ResolvedTask& task)
    : set_(&set), task_(&task) {
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const unsigned char* p = set.tensor(i);
    pristine_.emplace_back(p, p + task.inputs[i].bytes);
  }
}

void TimingInputs::perturb(std::uint64_t seed, double spread) {
  for (std::size_t i = 0; i < task_->inputs.size(); ++i) {
    const auto& t = task_->inputs[i];
    if (t.mutate)
      core::perturb(t.dtype, pristine_[i].data(), set_->tensor(i), t.numel, seed + i, spread);
  }
}

namespace {

// Between its calls a process is stopped, and no kernel can continue one (it signals only itself):
// found running, something outside kforge continued it, and what was timed meanwhile is void.
Judgement resumed(const KernelProcess& p, const std::string& while_what) {
  return {Verdict::runtime_error,
          fmt::format("{}: its process ran during {} while kforge had it stopped (continued "
                      "from outside kforge): the timing is void; run it again",
                      p.who(), while_what)};
}

// Lets every process it holds run again however the timing ends: the commands after it (a stop, a
// profile, the partner alone) need them running.
class ThawAtExit {
 public:
  explicit ThawAtExit(std::initializer_list<KernelProcess*> ps) : ps_(ps) {}
  ~ThawAtExit() {
    for (auto* p : ps_)
      if (p) p->thaw();
  }
  ThawAtExit(const ThawAtExit&) = delete;
  ThawAtExit& operator=(const ThawAtExit&) = delete;

 private:
  std::vector<KernelProcess*> ps_;
};

// Each side's pause before its start, from the other side's stop: at least what the other side
// had last (see even_pause_ms). Both processes are stopped meanwhile, so kforge spins.
class EvenPauses {
 public:
  enum Side { candidate = 0, partner = 1 };
  void before_start(Side side, double other_stopped_ms) {
    natural_[side] = now_s() * 1e3 - other_stopped_ms;
    const double until = other_stopped_ms + even_pause_ms(natural_[1 - side]);
    while (now_s() * 1e3 < until) {
    }
  }

 private:
  double natural_[2] = {0, 0};
};

}  // namespace

PairedTiming time_paired(KernelProcess& candidate, KernelProcess* partner, TimingInputs& inputs,
                         const core::ResolvedTask& task, const PairedTimingRequest& req) {
  SerialRegions serial;
  ThawAtExit thaw_at_exit{&candidate, partner};
  std::mt19937_64 rng{std::random_device{}() * 0x100000001ULL ^ std::random_device{}()};
  PairedTiming out;
  OutputSnapshot cand_out, partner_out;
  const double start = now_s();
  double warm_end = start;
  auto fail = [&](Judgement j) {
    out.failure = std::move(j);
    return out;
  };
  std::uint32_t last_cand_set = 0;
  bool last_audited = true;
  // An audit copies, re-reads and compares whole outputs between calls: before the partner's call
  // of its pair and the candidate's call of the next, which then follow other work than the
  // rest (an A/A of 12p_rmsnorm at the cpu size read 1.014-1.028 when they were counted). Those
  // pairs are checked, not timed, where an audit does more than a sampled pair.
  const auto& bytes = candidate.output_bytes();
  const bool audits_differ = std::any_of(bytes.begin(), bytes.end(), [&](std::size_t b) {
    return b > req.sample_lines * kSampleLineBytes;
  });
  double cand_frozen_ms = 0, partner_frozen_ms = 0;
  EvenPauses pauses;
  std::vector<double> partner_idle_ms;

  for (int pair = 0;; ++pair) {
    if (req.between_pairs) req.between_pairs();
    const bool warming = out.warmup_pairs < 2 || now_s() - start < req.warmup_s;
    const std::string label = fmt::format("timing pair {}", pair);
    const std::uint64_t seed = rng();
    inputs.perturb(seed, req.perturb);
    if (req.idle_before_call_ms > 0 && pair > 0)
      sleep_until_ms(cand_frozen_ms + req.idle_before_call_ms);
    // Each side alternates between its own two output sets (see KernelProcessSpec::output_sets).
    const std::uint32_t cand_set = static_cast<std::uint32_t>(pair % 2), partner_set = 1 - cand_set;
    if (partner && pair > 0) pauses.before_start(EvenPauses::candidate, partner_frozen_ms);
    if (pair > 0 && !candidate.frozen())
      return fail(resumed(candidate, partner ? "the calls of " + partner->who() : "the timing"));
    candidate.thaw();
    auto c = candidate.call(0, cand_set, req.call_timeout_s, label);
    if (c.failure) return fail(*c.failure);
    // Stopped at once; its outputs are copied while the stop lands, and re-read once it has: a
    // line written after the return differs from its copy.
    candidate.begin_freeze();
    // Drawn only now that the call has returned: the kernel cannot know what will be looked at.
    const bool audited = warming || draw_audit(rng, req.audit_every);
    const OutputSample sample =
        audited ? OutputSample{} : draw_sample(candidate.output_bytes(), req.sample_lines, rng);
    candidate.snapshot(cand_set, sample, cand_out, rng);
    if (auto j = candidate.wait_frozen(label)) return fail(*j);
    cand_frozen_ms = now_s() * 1e3;
    if (!candidate.unchanged_since(cand_set, sample, cand_out))
      return fail(late_write(candidate, pair));

    double p_ms = 0;
    if (partner) {
      inputs.perturb(
          seed, req.perturb);  // the same values, rewritten: the same prelude as the candidate's
      pauses.before_start(EvenPauses::partner, cand_frozen_ms);
      if (pair > 0 && !partner->frozen())
        return fail(resumed(*partner, "the calls of " + candidate.who()));
      const double partner_go_ms = now_s() * 1e3;
      if (pair > 0) partner_idle_ms.push_back(partner_go_ms - partner_frozen_ms);
      partner->thaw();
      auto p = partner->call(0, partner_set, req.call_timeout_s, label);
      if (p.failure) return fail(*p.failure);
      p_ms = p.ms;
      partner->begin_freeze();
      partner->snapshot(partner_set, sample, partner_out, rng);
      if (auto j = partner->wait_frozen(label)) return fail(*j);
      partner_frozen_ms = now_s() * 1e3;
      if (!partner->unchanged_since(partner_set, sample, partner_out))
        return fail(late_write(*partner, pair));
      // Unchanged before the partner's call: a change since is the candidate's leftover work (the
      // partner never maps the candidate's output sets).
      if (!candidate.unchanged_since(cand_set, sample, cand_out))
        return fail(late_write(candidate, pair));
      const std::string where =
          audited ? fmt::format("on timing pair {}", pair)
                  : fmt::format("on timing pair {} (lines sampled at random)", pair);
      if (auto mismatch = compare_pair(pointers(cand_out), pointers(partner_out), sizes(cand_out),
                                       task, partner->who(), where))
        return fail(*mismatch);
    }
    out.audited_pairs += audited ? 1 : 0;
    last_cand_set = cand_set;
    const bool previous_audited = last_audited;
    last_audited = audited;

    const bool follows_audit = audits_differ && (audited || previous_audited);
    if (warming) {
      ++out.warmup_pairs;
      warm_end = now_s();
      continue;
    }
    if (follows_audit) {
      ++out.untimed_pairs;
      continue;
    }
    out.candidate_ms.push_back(c.ms);
    if (partner) out.partner_ms.push_back(p_ms);
    if (timing_done(out, req, now_s() - warm_end)) break;
  }
  // The last pair is compared in full whatever was drawn: a kernel that is stale on a small share
  // of its outputs on every call is caught here, not by chance. Both processes are stopped.
  if (partner && !last_audited) {
    ++out.audited_pairs;
    const int last = out.warmup_pairs + static_cast<int>(out.candidate_ms.size()) - 1;
    if (auto mismatch =
            compare_pair(candidate.outputs(last_cand_set), partner->outputs(1 - last_cand_set),
                         candidate.output_bytes(), task, partner->who(),
                         fmt::format("on timing pair {} (the last, compared in full)", last)))
      return fail(*mismatch);
  }
  if (!candidate.frozen()) return fail(resumed(candidate, "the end of the timing"));
  if (!partner_idle_ms.empty()) out.partner_idle_ms = summarize(partner_idle_ms).median_ms;
  return out;
}

}  // namespace kforge::eval
