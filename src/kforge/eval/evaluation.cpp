// JSON form of an evaluation (what `kforge eval --json` prints).
#include "kforge/eval/evaluation.h"

#include "kforge/core/utf8.h"

namespace kforge::eval {
namespace {

nlohmann::json side(const std::optional<TimingStats>& t) {
  if (!t) return {{"median_ms", nullptr}};
  nlohmann::json j = *t;
  return j;
}

}  // namespace

nlohmann::json to_json(const Evaluation& e) {
  nlohmann::json j;
  j["verdict"] = verdict_name(e.verdict);
  j["reason"] = core::valid_utf8(e.reason);
  j["task"] = e.task_id;
  j["size"] = e.size;
  j["role"] = e.role;
  j["threads"] = e.threads;
  j["cpus"] = e.cpus;
  // A busy run's ratio is no result: it is kept apart, under busy_speedup, never as "speedup".
  const bool earned = e.speedup && !e.machine_busy;
  j["speedup"] = earned ? nlohmann::json(e.speedup->median) : nlohmann::json(nullptr);
  j["speedup_p10"] = earned ? nlohmann::json(e.speedup->p10) : nlohmann::json(nullptr);
  j["speedup_p90"] = earned ? nlohmann::json(e.speedup->p90) : nlohmann::json(nullptr);
  j["speedup_ci95"] =
      earned ? nlohmann::json{e.speedup->ci_low, e.speedup->ci_high} : nlohmann::json(nullptr);
  j["busy_speedup"] = e.speedup && e.machine_busy
                          ? nlohmann::json{{"median", e.speedup->median},
                                           {"p10", e.speedup->p10},
                                           {"p90", e.speedup->p90},
                                           {"ci95", {e.speedup->ci_low, e.speedup->ci_high}}}
                          : nlohmann::json(nullptr);
  j["candidate"] = side(e.candidate);
  j["baseline"] = side(e.baseline);
  j["partner"] = e.partner;
  j["partner_failed"] = e.partner_failed;
  j["partner_note"] = e.partner_note;
  if (!e.partner_version.empty())
    j["partner_peer"] = {{"version", e.partner_version},
                         {"compile_s", e.partner_compile_s},
                         {"warmup_s", e.partner_warmup_s},
                         {"copy_ms", e.partner_copy_ms},
                         {"seccomp", e.partner_seccomp}};
  j["timing_basis"] = e.timing_basis.empty() ? "native" : e.timing_basis;
  j["timing_is_performance"] = e.timing_is_performance();
  if (!e.pallas_mode.empty()) j["pallas_mode"] = e.pallas_mode;
  j["dtype"] = e.dtype;
  j["warmup_pairs"] = e.warmup_pairs;
  j["gflops"] = e.candidate ? nlohmann::json(e.gflops) : nlohmann::json(nullptr);
  j["gbps"] = e.candidate ? nlohmann::json(e.gbps) : nlohmann::json(nullptr);
  j["roofline_fraction"] = e.candidate ? nlohmann::json(e.roofline) : nlohmann::json(nullptr);
  j["roofline_note"] = e.roofline_note;
  j["check_ms"] = e.check_ms;
  j["mismatch"] = e.mismatch ? nlohmann::json(*e.mismatch) : nlohmann::json(nullptr);
  j["compile"] = {{"ok", e.compile.ok},
                  {"cached", e.compile.cached},
                  {"seconds", e.compile.seconds},
                  {"errors", toolchain::count_errors(e.compile.diagnostics)},
                  {"diagnostics", e.compile.diagnostics},
                  {"command", e.compile.command}};
  if (!e.compile.resources.empty()) j["compile"]["resources"] = e.compile.resources;
  j["audited_pairs"] = e.audited_pairs;
  j["untimed_pairs"] = e.untimed_pairs;
  j["call_overhead_ms"] = e.call_overhead_ms;
  j["timing_window"] = {
      {"start", e.timing_start}, {"end", e.timing_end}, {"lock_wait_s", e.lock_wait_s}};
  j["profile"] = e.profile ? to_json(*e.profile) : nlohmann::json(nullptr);
  if (!e.counters.empty()) j["counters"] = e.counters;
  if (!e.counters_note.empty()) j["counters_note"] = e.counters_note;
  if (!e.sanitizer_note.empty()) j["sanitizer_note"] = core::valid_utf8(e.sanitizer_note);
  if (!e.timing_method.empty()) j["timing_method"] = e.timing_method;
  j["kernel_output"] = core::valid_utf8(e.kernel_output);  // nlohmann::json throws on invalid UTF-8
  j["sandbox"] = {{"landlock_abi", e.landlock_abi}, {"walls", e.walls}};
  nlohmann::json samples = nlohmann::json::array();
  for (const auto& s : e.load_samples) samples.push_back(to_json(s));
  j["machine_load"] = {{"load_1min", e.load_average},
                       {"busy", e.machine_busy},
                       {"reason", e.busy_reason},
                       {"samples", samples},
                       {"quiet_wait", e.quiet_wait.to_json()},
                       {"partner_pace", e.partner_pace.to_json()}};
  j["phases"] = {{"compile_s", e.phases.compile_s},
                 {"partner_s", e.phases.partner_s},
                 {"prepare_s", e.phases.prepare_s},
                 {"check_s", e.phases.check_s},
                 {"time_s", e.phases.time_s},
                 {"total_s", e.phases.total_s},
                 // The waits inside total_s: for the machine lock, then for a quiet machine.
                 {"lock_wait_s", e.lock_wait_s},
                 {"quiet_wait_s", e.quiet_wait.waited_s}};
  return j;
}

}  // namespace kforge::eval
