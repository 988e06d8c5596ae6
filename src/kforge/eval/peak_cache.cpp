// The peaks record: its key and file, reading, writing under a lock, stale marks, and when to
// re-measure.
#include "kforge/eval/peak_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/record_lock.h"
#include "kforge/eval/runner_process.h"

namespace kforge::eval {
namespace {

std::string iso_time(double unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "host" : out.substr(0, 64);
}

int metric_index(const std::string& name) {
  for (int i = 0; i < 4; ++i)
    if (name == PeakRates::kNames[i]) return i;
  return -1;
}

nlohmann::json runs_json(const std::vector<PeakRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : runs) {
    auto j = to_json(r.rates);
    j["busy"] = r.load.busy;
    if (r.load.busy) j["load"] = r.load.reason;
    out.push_back(j);
  }
  return out;
}

// Explained rates survive re-measurements; a quiet one that still falls short of a stale mark's
// rate adds it (the run beat the peak by what the cost formula counts, or by its caches).
PeakRates explained_rates(const PeakMeasurement& m, const PeakRates& rates,
                          const std::optional<nlohmann::json>& previous) {
  PeakRates explained;
  if (!previous) return explained;
  explained =
      peak_rates_from_json((*previous)["peaks"].value("explained", nlohmann::json::object()));
  auto stale = previous->find("stale");
  if (m.provisional || stale == previous->end() || !stale->is_object()) return explained;
  const int i = metric_index(stale->value("metric", ""));
  const double rate = stale->value("rate", 0.0);
  if (i >= 0 && rates.at(i) < rate) explained.at(i) = std::max(explained.at(i), rate);
  return explained;
}

}  // namespace

std::string machine_key(const MachineProfile& d) {
  core::Hasher h;
  h.add("kforge peaks v2").add(d.cpu_model).add(d.hostname).add(openmp_openblas_dir());
  for (int n : {d.logical_cpus, d.physical_cores, d.usable_cpus})
    h.add(static_cast<std::uint64_t>(n));
  for (const auto& f : d.isa) h.add(f);
  for (const auto& c : d.caches)
    h.add(fmt::format("L{} {} {} {}", c.level, c.type, c.size_bytes, c.shared_by_cpus));
  return h.hex();
}

std::filesystem::path peak_file(const std::filesystem::path& cache_dir,
                                const MachineProfile& described) {
  return cache_dir / "peaks" /
         fmt::format("{}-{}.json", file_safe(described.hostname),
                     machine_key(described).substr(0, 16));
}

std::optional<nlohmann::json> read_peak_record(const std::filesystem::path& file,
                                               const std::string& key) {
  auto text = core::read_text(file);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("key", "") != key || !j.contains("peaks") ||
      !j["peaks"].is_object())
    return std::nullopt;
  return j;
}

Status write_peak_record(const std::filesystem::path& file, const nlohmann::json& record) {
  if (auto st = core::ensure_dir(file.parent_path()); !st) return st;
  core::RecordLock lock(file);
  return core::write_atomic(file, record.dump(2) + "\n");
}

Result<bool> mark_peaks_stale(const std::filesystem::path& file, double measured_unix,
                              const nlohmann::json& evidence) {
  core::RecordLock lock(file);
  auto text = core::read_text(file);
  if (!text) return text.error();
  auto record = nlohmann::json::parse(*text, nullptr, false);
  if (!record.is_object() || !record.contains("peaks"))
    return Error{fmt::format("{}: not a peaks record", file.string())};
  const auto& peaks = record["peaks"];
  if (peaks.value("measured_unix", 0.0) != measured_unix || peaks.value("provisional", false) ||
      record.contains("stale"))
    return false;
  record["stale"] = evidence;
  record["stale"]["at"] = iso_time(static_cast<double>(std::time(nullptr)));
  if (auto st = core::write_atomic(file, record.dump(2) + "\n"); !st) return st.error();
  return true;
}

std::string remeasure_reason(const nlohmann::json& record, int cpus, double now_unix,
                             double provisional_retry_s) {
  const auto& peaks = record["peaks"];
  if (auto stale = record.find("stale"); stale != record.end() && stale->is_object())
    return "a later run proved them low: " +
           stale->value("reason", std::string("(no reason recorded)"));
  // A measurement that ended implausible is provisional: it waits its turn like any other.
  if (!peaks.value("provisional", false))
    return implausible_peaks(peak_rates_from_json(peaks), cpus);
  const double age = now_unix - peaks.value("measured_unix", 0.0);
  if (age >= provisional_retry_s)
    return fmt::format("they are provisional ({}), measured {:.0f} min ago",
                       peaks.value("provisional_reason", ""), age / 60);
  return "";
}

nlohmann::json peak_record(const std::string& key, const MachineProfile& d,
                           const PeakMeasurement& m, const std::optional<nlohmann::json>& previous,
                           double now_unix) {
  PeakRates rates = m.best;
  if (m.provisional && previous) {
    auto before = peak_rates_from_json((*previous)["peaks"]);
    for (int i = 0; i < 4; ++i) rates.at(i) = std::max(rates.at(i), before.at(i));
  }
  nlohmann::json peaks = to_json(rates);
  for (const char* field :
       {"isa_used", "openblas_core", "openblas_config", "openblas_coretype_env"})
    peaks[field] = m.details.is_object() ? m.details.value(field, "") : "";
  peaks["measured_at"] = iso_time(now_unix);
  peaks["measured_unix"] = now_unix;
  peaks["provisional"] = m.provisional;
  peaks["provisional_reason"] = m.provisional_reason;
  peaks["load"] = to_json(m.worst_load);
  peaks["runs"] = runs_json(m.runs);
  peaks["spread"] = to_json(m.spread);
  peaks["seconds"] = m.seconds;
  peaks["explained"] = to_json(explained_rates(m, rates, previous));
  nlohmann::json machine = {{"cpu_model", d.cpu_model},
                            {"hostname", d.hostname},
                            {"isa", d.isa},
                            {"logical_cpus", d.logical_cpus},
                            {"usable_cpus", d.usable_cpus}};
  return {{"format", 2}, {"key", key}, {"machine", machine}, {"peaks", peaks}};
}

std::optional<MachineProfile> newer_peaks(const MachineProfile& m) {
  if (m.peak_file.empty()) return std::nullopt;
  auto record = read_peak_record(m.peak_file, machine_key(m));
  if (!record || (*record)["peaks"].value("measured_unix", 0.0) <= m.measured_unix)
    return std::nullopt;
  MachineProfile out = m;
  apply_peak_record(out, *record, m.peak_file);
  return out;
}

void apply_peak_record(MachineProfile& m, const nlohmann::json& record,
                       const std::filesystem::path& file) {
  const auto& p = record["peaks"];
  auto rates = peak_rates_from_json(p);
  m.fma_gflops_1 = rates.fma_gflops_1;
  m.fma_gflops_all = rates.fma_gflops_all;
  m.triad_gbps_1 = rates.triad_gbps_1;
  m.triad_gbps_all = rates.triad_gbps_all;
  m.peak_isa = p.value("isa_used", "");
  m.openblas_core = p.value("openblas_core", "");
  m.openblas_config = p.value("openblas_config", "");
  m.openblas_coretype_env = p.value("openblas_coretype_env", "");
  m.measured_at = p.value("measured_at", "");
  m.measured_unix = p.value("measured_unix", 0.0);
  m.provisional = p.value("provisional", false);
  m.provisional_reason = p.value("provisional_reason", "");
  auto load = p.value("load", nlohmann::json::object());
  m.peak_load = {load.value("busy", false), load.value("reason", ""),
                 load.value("outside_running", 0.0), load.value("steal", 0.0),
                 load.value("load_1min", 0.0)};
  m.peak_runs.clear();
  for (const auto& r : p.value("runs", nlohmann::json::array()))
    m.peak_runs.push_back(
        {peak_rates_from_json(r), {r.value("busy", false), r.value("load", ""), 0, 0, 0}});
  m.peak_spread = peak_rates_from_json(p.value("spread", nlohmann::json::object()));
  m.explained = peak_rates_from_json(p.value("explained", nlohmann::json::object()));
  m.peak_file = file;
}

}  // namespace kforge::eval
