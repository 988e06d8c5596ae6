#pragma once
// Test helper: kept results written straight into a state folder's store, as `kforge bench` and
// `kforge eval` write them: two bench results a day apart (tasks t and u; the second's u timed on
// a busy machine, so it has no figure) and an eval of t a day later.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kforge/store/results.h"
#include "kforge/store/store.h"

namespace kforge::web {

inline store::KeptResult kept_task(const std::string& task, std::optional<double> speedup,
                                   bool busy = false) {
  store::KeptResult r;
  r.task = task;
  r.size = "ci";
  r.dtype = "f32";
  r.role = "baseline";
  r.kernel = "baseline";
  r.partner = "libtorch";
  r.status = "evaluated";
  r.verdict = "correct";
  r.busy = busy;
  nlohmann::json e = {{"task", task}, {"verdict", "correct"}, {"speedup", nullptr}};
  if (busy) {
    e["busy_speedup"] = {{"median", 0.51}, {"ci95", {0.21, 2.49}}};
    e["machine_load"] = {{"busy", true}};
  } else if (speedup) {
    r.speedup = *speedup;
    r.speedup_low = *speedup - 0.1;
    r.speedup_high = *speedup + 0.1;
    e["speedup"] = *speedup;
    e["speedup_ci95"] = {*speedup - 0.1, *speedup + 0.1};
  }
  r.row = nlohmann::json{{"row", {{"schema", "kforge.result_row/2"}, {"task", task}}},
                         {"task", {{"task", task}, {"status", "evaluated"}, {"evaluation", e}}}}
              .dump();
  return r;
}

// Results 1 (bench, t 1.2x, u 2.0x), 2 (bench, t 2.5x, u busy) and 3 (eval of t, 3.0x).
inline void seed_kept_results(const std::filesystem::path& state_dir) {
  auto db = store::open_store(store::store_path(state_dir));
  ASSERT_TRUE(db) << db.error().message;
  auto set = [&](const std::string& command, const std::string& day) {
    store::ResultSet s;
    s.command = command;
    s.state = "finished";
    s.suite = "/suite/jaxbench";
    s.target = "cpp";
    s.size = "ci";
    s.dtype = "f32";
    s.impl = "baseline";
    s.partner = "libtorch";
    s.hostname = "box";
    s.isa = "avx2";
    s.threads = 2;
    s.git_sha = "0123456789abcdef";
    s.created_at = "2026-01-0" + day + "T00:00:00Z";
    auto id = store::insert_result_set(**db, s);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  };
  auto put = [&](std::int64_t id, store::KeptResult r) {
    r.set_id = id;
    ASSERT_TRUE(store::put_result(**db, r));
  };
  const auto first = set("bench", "1");
  put(first, kept_task("t", 1.2));
  put(first, kept_task("u", 2.0));
  const auto second = set("bench", "2");
  put(second, kept_task("t", 2.5));
  put(second, kept_task("u", std::nullopt, /*busy=*/true));
  const auto eval = set("eval", "3");
  put(eval, kept_task("t", 3.0));
}

}  // namespace kforge::web
