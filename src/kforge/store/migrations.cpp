// The store's schema history. Append only.
#include "kforge/store/migrations.h"

#include <fmt/format.h>

namespace kforge::store {
namespace {

constexpr Migration kMigrations[] = {
    {1, "sessions and llm calls", R"sql(
CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  started_at  TEXT NOT NULL,            -- ISO 8601, UTC
  command     TEXT NOT NULL DEFAULT '', -- what started it ("kforge llm ping --model …")
  cwd         TEXT NOT NULL DEFAULT ''
);
CREATE TABLE llm_calls (
  id               INTEGER PRIMARY KEY,
  session_id       TEXT NOT NULL REFERENCES sessions(id),
  call             INTEGER NOT NULL,    -- 1, 2, … within the session (the transcript's "call")
  time             TEXT NOT NULL,
  role             TEXT NOT NULL,
  provider         TEXT NOT NULL,
  model            TEXT NOT NULL,
  input_tokens     INTEGER NOT NULL DEFAULT 0,  -- includes cached_tokens
  output_tokens    INTEGER NOT NULL DEFAULT 0,  -- includes reasoning_tokens
  cached_tokens    INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  latency_ms       REAL NOT NULL DEFAULT 0,
  cost_usd         REAL NOT NULL DEFAULT 0,
  priced           INTEGER NOT NULL DEFAULT 1,
  cached           INTEGER NOT NULL DEFAULT 0,  -- served from the response cache
  finish_reason    TEXT NOT NULL DEFAULT '',
  error_kind       TEXT,                        -- NULL when the call succeeded
  error            TEXT,
  request_key      TEXT NOT NULL DEFAULT ''     -- the response-cache key of the request
);
CREATE INDEX llm_calls_by_session ON llm_calls(session_id);
CREATE TABLE llm_cache (
  key         TEXT PRIMARY KEY,
  created_at  TEXT NOT NULL,
  reply       TEXT NOT NULL                     -- JSON
);
)sql"},
    {2, "runs and their candidate kernels (auto runs and search graphs)", R"sql(
CREATE TABLE runs (
  id           TEXT PRIMARY KEY REFERENCES sessions(id),
  mode         TEXT NOT NULL,              -- auto | search | hitl
  task         TEXT NOT NULL,
  size         TEXT NOT NULL,
  state        TEXT NOT NULL,              -- running | finished | stopped | interrupted | failed
  options      TEXT NOT NULL DEFAULT '{}', -- JSON: how it was started (enough to resume)
  search_state TEXT NOT NULL DEFAULT '{}', -- JSON: an algorithm's own state between steps
  best_node    INTEGER,
  stop_reason  TEXT NOT NULL DEFAULT '',
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE TABLE nodes (
  id                INTEGER PRIMARY KEY,
  run_id            TEXT NOT NULL REFERENCES runs(id),
  parent_id         INTEGER REFERENCES nodes(id),
  depth             INTEGER NOT NULL DEFAULT 0,
  iteration         INTEGER NOT NULL DEFAULT 0,
  strategy          TEXT NOT NULL DEFAULT '',
  plan              TEXT NOT NULL DEFAULT '',
  source            TEXT NOT NULL DEFAULT '',
  source_hash       TEXT NOT NULL DEFAULT '',
  state             TEXT NOT NULL,          -- pending | running | done | failed
  verdict           TEXT,
  reason            TEXT NOT NULL DEFAULT '',
  median_ms         REAL,
  baseline_ms       REAL,
  speedup           REAL,
  roofline          REAL,
  profile           TEXT NOT NULL DEFAULT '',
  diagnosis         TEXT NOT NULL DEFAULT '',
  needs_improvement INTEGER,
  tokens_in         INTEGER NOT NULL DEFAULT 0,
  tokens_out        INTEGER NOT NULL DEFAULT 0,
  cost_usd          REAL NOT NULL DEFAULT 0,
  extra             TEXT NOT NULL DEFAULT '{}',  -- JSON: tuning, timings, island and cell, …
  created_at        TEXT NOT NULL,
  finished_at       TEXT
);
CREATE INDEX nodes_by_run ON nodes(run_id);
CREATE INDEX nodes_by_hash ON nodes(run_id, source_hash);
)sql"},
    {3, "the process that owns a running run (a killed one shows as interrupted)", R"sql(
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';  -- host|boot id|pid|start ticks
)sql"},
    {4, "calls whose tokens kforge estimated (the provider reported none)", R"sql(
ALTER TABLE llm_calls ADD COLUMN tokens_estimated INTEGER NOT NULL DEFAULT 0;
)sql"},
    {5,
     "a node's search data and roofline reason in typed columns (they were keys of the JSON column "
     "extra)",
     R"sql(
ALTER TABLE nodes ADD COLUMN roofline_reason  TEXT NOT NULL DEFAULT '';  -- why the roofline reads above 100%
ALTER TABLE nodes ADD COLUMN expansion        TEXT NOT NULL DEFAULT '';  -- the search expansion's key ('' outside a search)
ALTER TABLE nodes ADD COLUMN strategy_id      TEXT NOT NULL DEFAULT '';  -- catalogue id, 'crossover' or 'root'
ALTER TABLE nodes ADD COLUMN partner          INTEGER REFERENCES nodes(id);  -- a crossover's second parent
ALTER TABLE nodes ADD COLUMN expansion_result INTEGER NOT NULL DEFAULT 0;  -- the node its expansion finished with
ALTER TABLE nodes ADD COLUMN vs_parent_ratio  REAL;                      -- paired: the parent's time over this node's
ALTER TABLE nodes ADD COLUMN vs_parent        TEXT NOT NULL DEFAULT '';  -- JSON: that side-by-side decision
ALTER TABLE nodes ADD COLUMN vs_best          TEXT NOT NULL DEFAULT '';  -- JSON: against the search's best
ALTER TABLE nodes ADD COLUMN decision         TEXT NOT NULL DEFAULT '';  -- JSON: an auto iteration against its best
ALTER TABLE nodes ADD COLUMN timing_start     REAL;                      -- CLOCK_MONOTONIC seconds
ALTER TABLE nodes ADD COLUMN timing_end       REAL;
UPDATE nodes SET
  expansion        = coalesce(json_extract(extra, '$.expansion'), ''),
  strategy_id      = coalesce(json_extract(extra, '$.strategy_id'), ''),
  partner          = json_extract(extra, '$.partner'),
  expansion_result = coalesce(json_extract(extra, '$.expansion_result'), 0),
  vs_parent_ratio  = json_extract(extra, '$.vs_parent.ratio.median'),
  vs_parent        = coalesce(json_extract(extra, '$.vs_parent'), ''),
  vs_best          = coalesce(json_extract(extra, '$.vs_best'), ''),
  decision         = coalesce(json_extract(extra, '$.decision'), ''),
  timing_start     = json_extract(extra, '$.timing_window[0]'),
  timing_end       = json_extract(extra, '$.timing_window[1]'),
  extra = json_remove(extra, '$.expansion', '$.strategy_id', '$.partner', '$.expansion_result', '$.vs_parent', '$.vs_best',
                      '$.decision', '$.timing_window')
WHERE json_valid(extra) AND json_type(extra) = 'object';
)sql"},
    {6, "kept results: bench result sets and eval results with their rows", R"sql(
CREATE TABLE result_sets (
  id             INTEGER PRIMARY KEY,
  command        TEXT NOT NULL,              -- bench | eval
  state          TEXT NOT NULL,              -- running | finished | interrupted
  owner          TEXT NOT NULL DEFAULT '',   -- the process writing it (store/process_owner.h)
  suite          TEXT NOT NULL DEFAULT '',   -- bench: the suite folder
  task           TEXT NOT NULL DEFAULT '',   -- eval: the task id
  target         TEXT NOT NULL DEFAULT '',
  size           TEXT NOT NULL DEFAULT '',   -- as asked ('' = each task's default)
  dtype          TEXT NOT NULL DEFAULT '',
  impl           TEXT NOT NULL DEFAULT '',   -- bench --impl; eval: the kernel file
  partner        TEXT NOT NULL DEFAULT '',
  settings       TEXT NOT NULL DEFAULT '{}', -- JSON: what a resume must match
  hostname       TEXT NOT NULL DEFAULT '',
  cpu_model      TEXT NOT NULL DEFAULT '',
  isa            TEXT NOT NULL DEFAULT '',
  threads        INTEGER NOT NULL DEFAULT 0,
  openblas_coretype TEXT NOT NULL DEFAULT '', -- OPENBLAS_CORETYPE when set
  kforge_version TEXT NOT NULL DEFAULT '',
  git_sha        TEXT NOT NULL DEFAULT '',
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE TABLE results (
  id           INTEGER PRIMARY KEY,
  set_id       INTEGER NOT NULL REFERENCES result_sets(id),
  task         TEXT NOT NULL,
  size         TEXT NOT NULL DEFAULT '',   -- resolved
  dtype        TEXT NOT NULL DEFAULT '',
  role         TEXT NOT NULL DEFAULT '',   -- candidate | expert | baseline | reference
  kernel       TEXT NOT NULL DEFAULT '',   -- the file judged
  partner      TEXT NOT NULL DEFAULT '',   -- whom it was paired with
  status       TEXT NOT NULL DEFAULT '',   -- evaluated | skipped: … | error: …
  verdict      TEXT NOT NULL DEFAULT '',
  busy         INTEGER NOT NULL DEFAULT 0, -- timed on a busy machine: the speedup is no figure
  speedup      REAL,                       -- NULL when busy or not timed
  speedup_low  REAL,                       -- its 95% interval
  speedup_high REAL,
  median_ms    REAL,
  row          TEXT NOT NULL DEFAULT '{}', -- JSON: the full row
  created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX results_by_set ON results(set_id, task, partner);
CREATE INDEX results_by_task ON results(task);
)sql"},
};

Result<int> read_version(Database& db) {
  auto st = db.prepare("PRAGMA user_version");
  if (!st) return st.error();
  auto row = st->step();
  if (!row) return row.error();
  return *row ? static_cast<int>(st->int64(0)) : 0;
}

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }

Result<int> schema_version(Database& db) { return read_version(db); }

Status migrate(Database& db) {
  const int latest = kMigrations[std::size(kMigrations) - 1].version;
  auto version = read_version(db);
  if (!version) return version.error();
  if (*version > latest)
    return Error{fmt::format(
        "{}: schema version {} is newer than this kforge knows ({}): use a newer kforge",
        db.path().string(), *version, latest)};
  for (const Migration& m : kMigrations) {
    if (m.version <= *version) continue;
    if (auto s = db.exec("BEGIN IMMEDIATE"); !s)
      return with_context(s.error(), fmt::format("migration {} ({})", m.version, m.name));
    // Another process may have run it while this one waited for the lock.
    auto now = read_version(db);
    // A failed ROLLBACK or COMMIT of a transaction that changed nothing leaves nothing to undo;
    // the error that matters is the one returned.
    if (!now) {
      (void)db.exec("ROLLBACK");
      return now.error();
    }
    if (*now >= m.version) {
      (void)db.exec("COMMIT");
      continue;
    }
    auto s = db.exec(m.sql);
    if (s) s = db.exec(fmt::format("PRAGMA user_version = {}", m.version));
    if (s) s = db.exec("COMMIT");
    if (!s) {
      (void)db.exec("ROLLBACK");
      return with_context(s.error(), fmt::format("migration {} ({})", m.version, m.name));
    }
  }
  return ok_status();
}

}  // namespace kforge::store
