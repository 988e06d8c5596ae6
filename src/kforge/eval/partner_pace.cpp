// The partner's quiet medians per machine, and its slowdown against them as a load signal.
#include "kforge/eval/partner_pace.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "kforge/core/fs.h"
#include "kforge/core/record_lock.h"

namespace kforge::eval {
namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::filesystem::path partner_pace_file(const MachineProfile& m) {
  if (m.peak_file.empty()) return {};
  return m.peak_file.parent_path().parent_path() / "partner-pace" / m.peak_file.filename();
}

std::string partner_pace_entry(const std::string& task, const std::string& size, int threads,
                               const std::string& partner) {
  return fmt::format("{}/{}/{}t/{}", task, size, threads, partner);
}

std::optional<QuietPace> quiet_pace(const nlohmann::json& record, const std::string& entry) {
  auto entries = record.find("entries");
  if (entries == record.end() || !entries->is_object()) return std::nullopt;
  auto it = entries->find(entry);
  if (it == entries->end() || !it->is_object()) return std::nullopt;
  std::vector<double> ms;
  for (const auto& v : it->value("quiet_ms", nlohmann::json::array()))
    if (v.is_number() && v.get<double>() > 0) ms.push_back(v.get<double>());
  if (ms.empty()) return std::nullopt;
  return QuietPace{median_of(ms), static_cast<int>(ms.size())};
}

nlohmann::json with_quiet_run(nlohmann::json record, const std::string& entry, double median_ms,
                              double now_unix, std::size_t keep) {
  if (!record.is_object()) record = nlohmann::json::object();
  if (!record.contains("entries") || !record["entries"].is_object())
    record["entries"] = nlohmann::json::object();
  auto& e = record["entries"][entry];
  if (!e.is_object()) e = nlohmann::json::object();
  auto runs = e.value("quiet_ms", nlohmann::json::array());
  if (!runs.is_array()) runs = nlohmann::json::array();
  runs.push_back(median_ms);
  while (runs.size() > keep) runs.erase(runs.begin());
  e["quiet_ms"] = runs;
  e["updated"] = now_unix;
  record["schema"] = "kforge.partner_pace/1";
  return record;
}

nlohmann::json PartnerPace::to_json() const {
  nlohmann::json j = {
      {"slowdown", slowdown > 0 ? nlohmann::json(slowdown) : nlohmann::json(nullptr)},
      {"busy", busy},
      {"reason", reason}};
  j["quiet_median_ms"] = quiet ? nlohmann::json(quiet->median_ms) : nlohmann::json(nullptr);
  j["quiet_runs"] = quiet ? quiet->runs : 0;
  j["alone_ms"] = alone_ms > 0 ? nlohmann::json(alone_ms) : nlohmann::json(nullptr);
  j["alone_pause_ms"] = alone_pause_ms;
  return j;
}

PartnerPace judge_partner_pace(const std::optional<QuietPace>& quiet, double current_ms,
                               const std::string& partner, double busy_at) {
  PartnerPace p;
  p.quiet = quiet;
  if (!quiet || quiet->median_ms <= 0 || current_ms <= 0) return p;
  p.slowdown = current_ms / quiet->median_ms;
  p.busy = p.slowdown >= busy_at;
  if (p.busy)
    p.reason = fmt::format(
        "the {} ran {:.2f}x slower than its quiet median ({:.4g} ms over {} quiet run{})", partner,
        p.slowdown, quiet->median_ms, quiet->runs, quiet->runs == 1 ? "" : "s");
  return p;
}

Result<nlohmann::json> read_partner_pace(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return nlohmann::json::object();
  auto text = core::read_text(file);
  if (!text)
    return Error{
        fmt::format("the partner's pace record {}: {}", file.string(), text.error().message)};
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error{
        fmt::format("the partner's pace record {} is not a JSON object (delete it: it is rebuilt "
                    "from quiet timings)",
                    file.string())};
  return j;
}

Status record_quiet_partner(const std::filesystem::path& file, const std::string& entry,
                            double median_ms) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec)
    return Error{fmt::format("the partner's pace record: cannot create {}: {}",
                             file.parent_path().string(), ec.message())};
  core::RecordLock lock(file);
  auto record = read_partner_pace(file);
  if (!record) return record.error();
  auto st = core::write_atomic(
      file, with_quiet_run(std::move(*record), entry, median_ms, unix_now()).dump(1));
  if (!st)
    return Error{
        fmt::format("the partner's pace record {}: {}", file.string(), st.error().message)};
  return ok_status();
}

}  // namespace kforge::eval
