#include "kforge/eval/result_row.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "kforge/core/build_info.h"

namespace kforge::eval {
namespace {

// The columns, in order, each with how to read it from a row as JSON: one list, so the CSV header,
// the CSV cells and the JSON keys cannot drift apart.
const std::vector<std::string>& columns() {
  static const std::vector<std::string> c = {"schema",
                                             "kforge_version",
                                             "git_sha",
                                             "timestamp",
                                             "cpu_model",
                                             "isa",
                                             "logical_cpus",
                                             "openblas_core",
                                             "openblas_coretype",
                                             "task",
                                             "size",
                                             "impl",
                                             "threads",
                                             "status",
                                             "verdict",
                                             "busy",
                                             "load_average",
                                             "samples",
                                             "median_ms",
                                             "p10_ms",
                                             "p90_ms",
                                             "baseline_median_ms",
                                             "speedup",
                                             "speedup_ci_low",
                                             "speedup_ci_high",
                                             "busy_speedup",
                                             "busy_speedup_ci_low",
                                             "busy_speedup_ci_high",
                                             "partner_slowdown",
                                             "quiet_wait_s",
                                             "remeasured",
                                             "gflops",
                                             "gbps",
                                             "roofline",
                                             "reason"};
  return c;
}

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
  std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

RunStamp stamp_run(const MachineProfile& machine, const std::string& impl, int threads) {
  RunStamp s;
  s.kforge_version = std::string(core::version());
  s.git_sha = std::string(core::git_sha());
  s.timestamp =
      fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                  std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  s.cpu_model = machine.cpu_model;
  s.isa = machine.peak_isa;
  s.openblas_core = machine.openblas_core;
  s.openblas_coretype = machine.openblas_coretype_env;
  s.logical_cpus = machine.logical_cpus;
  s.impl = impl;
  s.threads = threads;
  return s;
}

ResultRow make_row(const RunStamp& stamp, const SuiteTaskResult& r,
                   const std::string& requested_size) {
  ResultRow row;
  row.stamp = stamp;
  row.task = r.id;
  row.status = r.status;
  row.size = requested_size;
  if (!r.evaluation) return row;
  const Evaluation& e = *r.evaluation;
  if (!e.size.empty()) row.size = e.size;
  row.verdict = std::string(verdict_name(e.verdict));
  row.reason = e.reason;
  row.busy = e.machine_busy;
  row.load_average = e.load_average;
  if (e.threads > 0) row.stamp.threads = e.threads;
  if (e.candidate) {
    row.samples = e.candidate->samples;
    row.median_ms = e.candidate->median_ms;
    row.p10_ms = e.candidate->p10_ms;
    row.p90_ms = e.candidate->p90_ms;
    row.gflops = e.gflops;
    row.gbps = e.gbps;
    if (e.roofline > 0) row.roofline = e.roofline;
  }
  if (e.baseline) row.baseline_median_ms = e.baseline->median_ms;
  row.remeasured = r.remeasured;
  row.quiet_wait_s = e.quiet_wait.waited_s;
  if (e.partner_pace.slowdown > 0) row.partner_slowdown = e.partner_pace.slowdown;
  if (e.speedup && e.machine_busy) {
    row.busy_speedup = e.speedup->median;
    row.busy_speedup_ci_low = e.speedup->ci_low;
    row.busy_speedup_ci_high = e.speedup->ci_high;
  } else if (e.speedup) {
    row.speedup = e.speedup->median;
    row.speedup_ci_low = e.speedup->ci_low;
    row.speedup_ci_high = e.speedup->ci_high;
  }
  return row;
}

nlohmann::json to_json(const ResultRow& r) {
  const RunStamp& s = r.stamp;
  nlohmann::json j = {
      {"schema", kResultRowSchema},
      {"kforge_version", s.kforge_version},
      {"git_sha", s.git_sha},
      {"timestamp", s.timestamp},
      {"cpu_model", s.cpu_model},
      {"isa", s.isa},
      {"logical_cpus", s.logical_cpus},
      {"openblas_core", s.openblas_core},
      {"openblas_coretype", s.openblas_coretype},
      {"task", r.task},
      {"size", r.size},
      {"impl", s.impl},
      {"threads", s.threads},
      {"status", r.status},
      {"verdict", r.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verdict)},
      {"busy", r.busy},
      {"load_average", r.load_average},
      {"samples", or_null(r.samples)},
      {"median_ms", or_null(r.median_ms)},
      {"p10_ms", or_null(r.p10_ms)},
      {"p90_ms", or_null(r.p90_ms)},
      {"baseline_median_ms", or_null(r.baseline_median_ms)},
      {"speedup", or_null(r.speedup)},
      {"speedup_ci_low", or_null(r.speedup_ci_low)},
      {"speedup_ci_high", or_null(r.speedup_ci_high)},
      {"busy_speedup", or_null(r.busy_speedup)},
      {"busy_speedup_ci_low", or_null(r.busy_speedup_ci_low)},
      {"busy_speedup_ci_high", or_null(r.busy_speedup_ci_high)},
      {"partner_slowdown", or_null(r.partner_slowdown)},
      {"quiet_wait_s", r.quiet_wait_s},
      {"remeasured", r.remeasured},
      {"gflops", or_null(r.gflops)},
      {"gbps", or_null(r.gbps)},
      {"roofline", or_null(r.roofline)},
      {"reason", r.reason}};
  return j;
}

std::string csv_header() {
  std::string out;
  for (const auto& c : columns()) out += (out.empty() ? "" : ",") + c;
  return out;
}

std::string to_csv(const ResultRow& row) {
  nlohmann::json j = to_json(row);
  std::string out;
  bool first = true;
  for (const auto& c : columns()) {
    out += (first ? "" : ",") + csv_cell(j.at(c));
    first = false;
  }
  return out;
}

}  // namespace kforge::eval
