#pragma once
// Kept results as JSON: the one description `kforge results --json`, `kforge compare ID` and the
// web page's suite endpoints share. A set with its rows reads like `kforge bench --json` ("rows"
// the flat result rows, "tasks" the evaluations), so a saved one compares like a bench file.

#include <nlohmann/json.hpp>

#include "kforge/store/results.h"

namespace kforge::store {

// A row's typed columns, unmeasured numbers null: {task, partner, role, kernel, size, dtype,
// status, verdict, busy, speedup, speedup_ci95, median_ms, created_at}.
nlohmann::json kept_result_json(const KeptResult& row);

// A set: where, how and when it was measured, its state as shown (effective_state) and the
// summary of `rows`; with_rows adds "results" (kept_result_json of each), and the JSON each row
// kept as "rows" and "tasks".
nlohmann::json result_set_json(const ResultSet& set, const std::vector<KeptResult>& rows,
                               bool with_rows);

// The full JSON a row kept: {"row": the flat result row, "task": bench --json's task entry}; an
// object with neither when the text is not JSON (a row written by hand).
nlohmann::json kept_json(const KeptResult& row);

}  // namespace kforge::store
