// Paired timing. Each pair: perturb the inputs (untimed), call the candidate (timed), snapshot;
// perturb again with the same seed (the same values, rewritten), call the partner (timed),
// snapshot; compare the two snapshots. The candidate always runs first on fresh data, so it can
// never find the partner's answer for that data in memory (freed buffers included). Rewriting the
// inputs before the partner gives both calls the same prelude (inputs just written by the
// harness's threads, own outputs just poisoned, OpenMP workers awake): without it the second
// call inherits inputs already pulled into the right cores by the first, and an A/A run reads
// 0.95 instead of 1.00. The two output buffer sets also swap owners every pair: which physical
// pages a buffer got can make one set a few percent faster than the other, and that must not
// be credited to either kernel.
#include <algorithm>

#include "kforge/core/compare.h"
#include "kforge/core/input_fill.h"
#include "kforge/core/median_ci.h"
#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"

namespace kforge::runner {
namespace {

void perturb_inputs(RunState& s, int pair) {
  std::uint64_t seed = s.setup.timing_seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(pair + 1));
  for (std::size_t i = 0; i < s.setup.inputs.size(); ++i) {
    const auto& t = s.setup.inputs[i];
    if (t.mutate) core::perturb(t.dtype, s.pristine[i].data(), s.timing_window[i], t.numel, seed + i, s.setup.perturb);
  }
}

// Candidate against partner for one pair; null when they agree.
nlohmann::json compare_pair(const RunState& s, const OutputSet& cand, const OutputSet& partner, int pair) {
  for (std::size_t i = 0; i < s.setup.outputs.size(); ++i) {
    const auto& t = s.setup.outputs[i];
    const void* theirs = s.partner_untrusted ? partner.snapshot[i].data() : partner.live[i].data;
    // Both sides approximate the exact result, so their difference may reach twice the tolerance.
    auto c = core::compare_buffers(t.dtype, cand.snapshot[i].data(), theirs, t.numel,
                                   2 * s.setup.rtol, 2 * s.setup.atol);
    if (!c.ok())
      return {{"pair", pair},          {"output", t.name},           {"bad", c.bad},
              {"numel", c.numel},      {"first_bad", c.first_bad},   {"max_abs", c.max_abs},
              {"candidate", c.worst_actual}, {"partner", c.worst_expected}, {"nan", c.nan_actual}};
  }
  return nullptr;
}

// An empty parallel region just before each timed call: both calls then find the OpenMP workers
// awake (spinning) rather than whichever happened to follow the longer untimed gap.
void wake_workers(int threads) {
#pragma omp parallel num_threads(threads)
  { asm volatile("" ::: "memory"); }
}

// Half-width of the ~95% confidence interval of the median, relative to the median.
double median_ci_relative(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double median = v[v.size() / 2];
  auto [lo, hi] = core::median_ci95(v);
  return median > 0 ? (hi - lo) / (2 * median) : 1.0;
}

}  // namespace

void timing_phase(RunState& s, const TimeRequest& req) {
  const bool paired = s.partner.has_value();
  const int threads_start = thread_count(s.proc_stat_fd);
  std::vector<double> cand_ms, partner_ms, ratios;
  nlohmann::json mismatch = nullptr;
  bool inputs_modified = false;
  int warmup_pairs = 0;
  const double start = now_seconds();
  double warm_end = 0;

  for (int pair = 0;; ++pair) {
    bool warming = warmup_pairs < 2 || now_seconds() - start < req.warmup_seconds;
    OutputSet& cand_out = pair % 2 ? s.partner_out : s.candidate_out;
    OutputSet& partner_out = pair % 2 ? s.candidate_out : s.partner_out;
    perturb_inputs(s, pair);
    std::uint64_t expected_hash = hash_inputs(s.timing_inputs);

    poison(s.setup, cand_out);
    set_fault_phase("kernel, timing");
    wake_workers(s.setup.threads);
    double t0 = now_seconds();
    s.candidate->call(s.args(s.timing_inputs, cand_out));
    double t1 = now_seconds();
    take_snapshot(cand_out);
    set_fault_phase("timing");
    if (hash_inputs(s.timing_inputs) != expected_hash) {
      inputs_modified = true;
      break;
    }
    double t2 = 0, t3 = 0;
    if (paired) {
      // Deterministic: the same values the candidate saw. Then the same hash and poison as
      // before the candidate's call, so both calls find the inputs and outputs in the same state.
      perturb_inputs(s, pair);
      if (hash_inputs(s.timing_inputs) != expected_hash) {
        inputs_modified = true;
        break;
      }
      poison(s.setup, partner_out);
      set_fault_phase(s.partner_untrusted ? "--against kernel, timing" : "baseline, timing");
      wake_workers(s.setup.threads);
      t2 = now_seconds();
      s.partner->call(s.args(s.timing_inputs, partner_out));
      t3 = now_seconds();
      // An untrusted partner's outputs are snapshotted like the candidate's; the trusted
      // baseline's are compared where they lie.
      if (s.partner_untrusted) take_snapshot(partner_out);
      set_fault_phase("timing");
      if (s.partner_untrusted && hash_inputs(s.timing_inputs) != expected_hash) {
        inputs_modified = true;
        break;
      }
      mismatch = compare_pair(s, cand_out, partner_out, pair);
      if (!mismatch.is_null()) break;
    }
    if (warming) {
      ++warmup_pairs;
      warm_end = now_seconds();
      continue;
    }
    cand_ms.push_back((t1 - t0) * 1e3);
    if (paired) {
      partner_ms.push_back((t3 - t2) * 1e3);
      ratios.push_back((t3 - t2) / std::max(t1 - t0, 1e-12));
    }
    const int n = static_cast<int>(cand_ms.size());
    if (n >= req.max_pairs) break;
    if (n < req.min_pairs) continue;
    // At the budget, stop once the median is known to ±2%; a noisy pair series may take up to
    // three budgets (an A/A run with 30 pairs of a memory-bound kernel missed 1.00 by 4%).
    if (const double spent = now_seconds() - warm_end; spent >= req.budget_seconds) {
      if (spent >= 3 * req.budget_seconds || median_ci_relative(paired ? ratios : cand_ms) <= 0.02) break;
    }
    if (n >= 30 && n % 10 == 0 && median_ci_relative(paired ? ratios : cand_ms) < 0.005) break;
  }
  const double loop_seconds = now_seconds() - start;
  double background = idle_cpu_ms();

  nlohmann::json pairs = nlohmann::json::array();
  for (std::size_t i = 0; i < cand_ms.size(); ++i)
    pairs.push_back(paired ? nlohmann::json{cand_ms[i], partner_ms[i]} : nlohmann::json{cand_ms[i]});
  double timed_ms = 0;
  for (double v : cand_ms) timed_ms += v;
  for (double v : partner_ms) timed_ms += v;
  set_fault_phase("waiting");
  write_message(s.channel, {{"op", "timed"},
                            {"pairs", pairs},
                            {"warmup_pairs", warmup_pairs},
                            {"loop_seconds", loop_seconds},
                            {"timed_ms", timed_ms},
                            {"mismatch", mismatch},
                            {"inputs_modified", inputs_modified},
                            {"background_cpu_ms", background},
                            {"threads_start", threads_start},
                            {"threads", thread_count(s.proc_stat_fd)}});
}

}  // namespace kforge::runner
