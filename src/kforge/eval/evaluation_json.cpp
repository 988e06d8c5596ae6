// The inverse of to_json(Evaluation), field by field, tolerant of missing fields.
#include "kforge/eval/evaluation_json.h"

namespace kforge::eval {
namespace {

std::optional<TimingStats> timing(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("median_ms") || j["median_ms"].is_null()) return std::nullopt;
  return TimingStats{j.value("samples", 0), j.value("median_ms", 0.0), j.value("p10_ms", 0.0),
                     j.value("p90_ms", 0.0), j.value("min_ms", 0.0)};
}

Profile profile(const nlohmann::json& j) {
  Profile p;
  p.samples = j.value("samples", 0L);
  p.calls = j.value("calls", 0);
  if (j.contains("object_share"))
    for (const auto& [k, v] : j["object_share"].items()) p.object_share[k] = v.get<double>();
  for (const auto& h : j.value("hot_lines", nlohmann::json::array()))
    p.hot_lines.push_back({h.value("line", 0), h.value("samples", 0L), h.value("share", 0.0),
                           h.value("function", ""), h.value("source", "")});
  p.hot_instructions = hot_instructions_from_json(j.value("hot_instructions", nlohmann::json()));
  for (const auto& v : j.value("vectorization", nlohmann::json::array()))
    p.vectorization.push_back({v.value("line", 0), v.value("vectorized", false),
                               v.value("detail", ""), "", v.value("intrinsics", false)});
  p.gflops = j.value("gflops", 0.0);
  p.gbps = j.value("gbps", 0.0);
  p.roofline = j.value("roofline", 0.0);
  p.arithmetic_intensity = j.value("arithmetic_intensity", 0.0);
  p.machine_balance = j.value("machine_balance", 0.0);
  p.bound = j.value("bound", "");
  p.roofline_note = j.value("roofline_note", "");
  return p;
}

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// The mismatch report as the debugger reads it (a cluster job's evaluation comes back whole).
MismatchReport mismatch(const nlohmann::json& j) {
  MismatchReport r;
  r.check_set = j.value("check_set", 0);
  r.rtol = number_or(j, "rtol", 0);
  r.atol = number_or(j, "atol", 0);
  for (const auto& o : j.value("outputs", nlohmann::json::array())) {
    OutputMismatch m;
    m.output = o.value("output", "");
    m.shape = o.value("shape", std::vector<std::int64_t>{});
    m.numel = o.value("numel", std::int64_t{0});
    m.bad = o.value("bad", std::int64_t{0});
    m.never_written = o.value("never_written", std::int64_t{0});
    m.max_abs = number_or(o, "max_abs", 0);
    m.max_rel = number_or(o, "max_rel", 0);
    m.worst_index = o.value("worst_index", std::vector<std::int64_t>{});
    m.worst_actual = number_or(o, "worst_actual", 0);
    m.worst_expected = number_or(o, "worst_expected", 0);
    m.first_bad_index = o.value("first_bad_index", std::vector<std::int64_t>{});
    m.bad_lo = o.value("bad_lo", std::vector<std::int64_t>{});
    m.bad_hi = o.value("bad_hi", std::vector<std::int64_t>{});
    m.pattern = o.value("pattern", "");
    r.outputs.push_back(std::move(m));
  }
  return r;
}

void restore_run_details(const nlohmann::json& j, Evaluation& e) {
  if (j.contains("mismatch") && j["mismatch"].is_object()) e.mismatch = mismatch(j["mismatch"]);
  if (auto c = j.value("compile", nlohmann::json::object()); c.is_object()) {
    e.compile.ok = c.value("ok", false);
    e.compile.cached = c.value("cached", false);
    e.compile.seconds = number_or(c, "seconds", 0);
    e.compile.command = c.value("command", "");
    if (c.contains("diagnostics") && c["diagnostics"].is_array())
      e.compile.diagnostics = c["diagnostics"].get<std::vector<toolchain::Diagnostic>>();
  }
  if (auto p = j.value("phases", nlohmann::json::object()); p.is_object()) {
    e.phases.compile_s = number_or(p, "compile_s", 0);
    e.phases.partner_s = number_or(p, "partner_s", 0);
    e.phases.prepare_s = number_or(p, "prepare_s", 0);
    e.phases.check_s = number_or(p, "check_s", 0);
    e.phases.time_s = number_or(p, "time_s", 0);
    e.phases.total_s = number_or(p, "total_s", 0);
  }
  if (auto w = j.value("timing_window", nlohmann::json::object()); w.is_object()) {
    e.timing_start = number_or(w, "start", 0);
    e.timing_end = number_or(w, "end", 0);
    e.lock_wait_s = number_or(w, "lock_wait_s", 0);
  }
  e.warmup_pairs = j.value("warmup_pairs", 0);
  e.call_overhead_ms = number_or(j, "call_overhead_ms", 0);
  e.audited_pairs = static_cast<int>(number_or(j, "audited_pairs", 0));
  e.untimed_pairs = static_cast<int>(number_or(j, "untimed_pairs", 0));
  if (auto sb = j.value("sandbox", nlohmann::json::object()); sb.is_object()) {
    e.landlock_abi = sb.value("landlock_abi", 0);
    if (auto w = sb.value("walls", nlohmann::json()); w.is_string()) e.walls = w.get<std::string>();
  }
}

}  // namespace

Evaluation evaluation_from_json(const nlohmann::json& j) {
  Evaluation e;
  if (auto v = parse_verdict(j.value("verdict", ""))) e.verdict = *v;
  e.reason = j.value("reason", "");
  e.task_id = j.value("task", "");
  e.size = j.value("size", "");
  e.role = j.value("role", "candidate");
  e.threads = j.value("threads", 0);
  e.cpus = j.value("cpus", std::vector<int>{});
  e.partner = j.value("partner", "");
  e.partner_failed = j.value("partner_failed", false);
  e.partner_note = j.value("partner_note", "");
  if (auto p = j.value("partner_peer", nlohmann::json::object()); p.is_object()) {
    e.partner_version = p.value("version", "");
    e.partner_compile_s = number_or(p, "compile_s", 0);
    e.partner_warmup_s = number_or(p, "warmup_s", 0);
    e.partner_copy_ms = number_or(p, "copy_ms", 0);
    e.partner_seccomp = p.value("seccomp", "");
  }
  if (auto basis = j.value("timing_basis", ""); basis != "native") e.timing_basis = basis;
  e.pallas_mode = j.value("pallas_mode", "");
  e.dtype = j.value("dtype", "f32");
  e.candidate = timing(j.value("candidate", nlohmann::json()));
  e.baseline = timing(j.value("baseline", nlohmann::json()));
  if (auto busy = j.value("busy_speedup", nlohmann::json()); busy.is_object()) {
    e.speedup = SpeedupStats{number_or(busy, "median", 0), number_or(busy, "p10", 0),
                             number_or(busy, "p90", 0)};
    if (auto ci = busy.value("ci95", nlohmann::json());
        ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
      e.speedup->ci_low = ci[0].get<double>();
      e.speedup->ci_high = ci[1].get<double>();
    }
  } else if (j.contains("speedup") && j["speedup"].is_number()) {
    e.speedup = SpeedupStats{j["speedup"].get<double>(), number_or(j, "speedup_p10", 0),
                             number_or(j, "speedup_p90", 0)};
    if (auto ci = j.value("speedup_ci95", nlohmann::json()); ci.is_array() && ci.size() == 2) {
      e.speedup->ci_low = ci[0].get<double>();
      e.speedup->ci_high = ci[1].get<double>();
    }
  }
  e.gflops = number_or(j, "gflops", 0);
  e.gbps = number_or(j, "gbps", 0);
  e.roofline = number_or(j, "roofline_fraction", 0);
  e.roofline_note = j.value("roofline_note", "");
  if (auto load = j.value("machine_load", nlohmann::json::object()); load.is_object()) {
    e.load_average = number_or(load, "load_1min", 0);
    e.machine_busy = load.value("busy", false);
    e.busy_reason = load.value("reason", "");
    for (const auto& s : load.value("samples", nlohmann::json::array()))
      e.load_samples.push_back(load_sample_from_json(s));
    if (auto w = load.value("quiet_wait", nlohmann::json::object()); w.is_object()) {
      e.quiet_wait.busy_before = w.value("busy_before", false);
      e.quiet_wait.quiet = w.value("quiet_after", true);
      e.quiet_wait.waited_s = number_or(w, "waited_s", 0);
      e.quiet_wait.bound_s = number_or(w, "bound_s", 0);
      e.quiet_wait.reason = w.value("reason", "");
    }
    if (auto p = load.value("partner_pace", nlohmann::json::object()); p.is_object()) {
      e.partner_pace.slowdown = number_or(p, "slowdown", 0);
      e.partner_pace.busy = p.value("busy", false);
      e.partner_pace.reason = p.value("reason", "");
      e.partner_pace.alone_ms = number_or(p, "alone_ms", 0);
      e.partner_pace.alone_pause_ms = number_or(p, "alone_pause_ms", 0);
      if (number_or(p, "quiet_median_ms", 0) > 0)
        e.partner_pace.quiet =
            QuietPace{number_or(p, "quiet_median_ms", 0), p.value("quiet_runs", 0)};
    }
  }
  if (j.contains("profile") && j["profile"].is_object()) e.profile = profile(j["profile"]);
  if (j.contains("counters") && j["counters"].is_array())
    e.counters = j["counters"].get<std::vector<NcuKernel>>();
  e.counters_note = j.value("counters_note", "");
  e.sanitizer_note = j.value("sanitizer_note", "");
  e.timing_method = j.value("timing_method", "");
  for (const auto& ms : j.value("check_ms", nlohmann::json::array()))
    e.check_ms.push_back(ms.get<double>());
  e.kernel_output = j.value("kernel_output", "");
  restore_run_details(j, e);
  return e;
}

}  // namespace kforge::eval
