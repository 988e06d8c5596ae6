// Keeping bench and eval results in the store.
#include "kforge/cli/kept_results.h"

#include <fmt/format.h>

#include <cstdlib>

#include "kforge/core/build_info.h"
#include "kforge/core/paths.h"
#include "kforge/eval/evaluation_json.h"
#include "kforge/store/result_json.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

void warn(const std::string& what) {
  fmt::print(stderr, "kforge: warning: results not kept in the store: {}\n", what);
}

}  // namespace

store::ResultSet new_result_set(const std::string& command, const eval::MachineProfile& m,
                                int threads) {
  store::ResultSet s;
  s.command = command;
  s.hostname = m.hostname;
  s.cpu_model = m.cpu_model;
  // The ISA the peaks were measured with (what `kforge bench` prints); the widest extension the
  // CPU lists when no peaks were read (an eval that did not time).
  s.isa = !m.peak_isa.empty() ? m.peak_isa : m.isa.empty() ? "" : m.isa.back();
  s.threads = threads;
  s.openblas_coretype = m.openblas_coretype_env;
  if (const char* env = std::getenv("OPENBLAS_CORETYPE"); s.openblas_coretype.empty() && env)
    s.openblas_coretype = env;
  s.kforge_version = std::string(core::version());
  s.git_sha = std::string(core::git_sha());
  return s;
}

bool finished(const eval::SuiteTaskResult& r) {
  if (!r.evaluation) return r.status.rfind("interrupted", 0) != 0;
  return r.evaluation->verdict != eval::Verdict::interrupted;
}

store::KeptResult kept_row(std::int64_t set_id, const eval::RunStamp& stamp,
                           const eval::SuiteTaskResult& r, const RowFacts& facts) {
  store::KeptResult k;
  k.set_id = set_id;
  k.task = r.id;
  k.size = facts.requested_size;
  k.dtype = facts.dtype;
  k.role = facts.role;
  k.kernel = facts.kernel;
  k.partner = facts.partner;
  k.status = r.status;
  if (const auto& e = r.evaluation) {
    if (!e->size.empty()) k.size = e->size;
    k.dtype = e->dtype;
    k.role = e->role;
    if (k.partner.empty()) k.partner = e->partner;
    k.verdict = std::string(eval::verdict_name(e->verdict));
    k.busy = e->machine_busy;
    if (e->candidate) k.median_ms = e->candidate->median_ms;
    // A busy reading is no figure: it stays in the JSON (busy_speedup), not in the column.
    if (e->speedup && !e->machine_busy) {
      k.speedup = e->speedup->median;
      k.speedup_low = e->speedup->ci_low;
      k.speedup_high = e->speedup->ci_high;
    }
  }
  k.row = nlohmann::json{{"row", eval::to_json(eval::make_row(stamp, r, facts.requested_size))},
                         {"task", eval::to_json(r)}}
              .dump();
  return k;
}

eval::SuiteTaskResult restored(const store::KeptResult& row) {
  const auto kept = store::kept_json(row);
  const auto task = kept.value("task", nlohmann::json::object());
  eval::SuiteTaskResult r{row.task, task.value("status", row.status), std::nullopt};
  r.remeasured = task.value("remeasured", 0);
  if (auto e = task.find("evaluation"); e != task.end() && e->is_object())
    r.evaluation = eval::evaluation_from_json(*e);
  return r;
}

ResultKeeper ResultKeeper::start(const store::ResultSet& set) {
  ResultKeeper k;
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) {
    warn(db.error().message);
    return k;
  }
  auto id = store::insert_result_set(**db, set);
  if (!id) {
    warn(id.error().message);
    return k;
  }
  k.db_ = std::move(*db);
  k.id_ = *id;
  return k;
}

ResultKeeper ResultKeeper::resume(std::unique_ptr<store::Database> db, std::int64_t id) {
  ResultKeeper k;
  if (auto st = store::set_result_state(*db, id, "running"); !st) {
    warn(st.error().message);
    return k;
  }
  k.db_ = std::move(db);
  k.id_ = id;
  return k;
}

void ResultKeeper::keep(const store::KeptResult& row) {
  if (!id_) return;
  store::KeptResult r = row;
  r.set_id = *id_;
  if (auto st = store::put_result(*db_, r); !st) warn(st.error().message);
}

void ResultKeeper::finish(bool interrupted) {
  if (!id_) return;
  if (auto st = store::set_result_state(*db_, *id_, interrupted ? "interrupted" : "finished"); !st)
    warn(st.error().message);
}

}  // namespace kforge::cli
