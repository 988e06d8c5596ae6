// The fastest-peer record: a small JSON file per machine, rewritten atomically.
#include "kforge/eval/fastest_peer.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"

namespace kforge::eval {
namespace {

Result<nlohmann::json> read_record(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return nlohmann::json::object();
  auto text = core::read_text(file);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error{
        fmt::format("{}: not a fastest-peer record (delete it to start afresh)", file.string())};
  return j;
}

}  // namespace

std::filesystem::path fastest_peer_file(const MachineProfile& m) {
  if (m.peak_file.empty()) return {};
  return m.peak_file.parent_path().parent_path() / "fastest-peer" / m.peak_file.filename();
}

std::string fastest_peer_entry(const std::string& task, const std::string& size, int threads) {
  return fmt::format("{}/{}/{}t", task, size, threads);
}

Status record_fastest_peer(const std::filesystem::path& file, const std::string& entry,
                           const std::string& peer, double speedup) {
  auto record = read_record(file);
  if (!record) return record.error();
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  (*record)["entries"][entry] = {{"peer", peer}, {"speedup", speedup}, {"updated", now}};
  if (auto st = core::ensure_dir(file.parent_path()); !st) return st;
  return core::write_atomic(file, record->dump(1));
}

Result<std::optional<std::string>> cached_fastest_peer(const std::filesystem::path& file,
                                                       const std::string& entry) {
  auto record = read_record(file);
  if (!record) return record.error();
  auto entries = record->find("entries");
  if (entries == record->end() || !entries->is_object() || !entries->contains(entry))
    return std::optional<std::string>{};
  const auto& e = (*entries)[entry];
  if (!e.is_object() || !e.contains("peer") || !e["peer"].is_string())
    return Error{fmt::format("{}: entry {} has no peer", file.string(), entry)};
  return std::optional<std::string>{e["peer"].get<std::string>()};
}

}  // namespace kforge::eval
