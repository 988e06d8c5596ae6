// FTS5 over playbook sections; the query's words are OR-ed so any overlap counts, and BM25 ranks.
#include "kforge/agents/knowledge_index.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "kforge/core/fs.h"

namespace kforge::agents {
namespace {

std::vector<PlaybookSection> split_sections(const std::string& file, const std::string& text) {
  std::vector<PlaybookSection> out;
  std::string title;
  PlaybookSection cur;
  std::istringstream in(text);
  auto flush = [&] {
    if (!cur.heading.empty()) out.push_back(cur);
  };
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      flush();
      cur = {file, title, line.substr(3), ""};
    } else if (line.rfind("# ", 0) == 0) {
      title = line.substr(2);
    } else if (!cur.heading.empty()) {
      cur.body += line + "\n";
    }
  }
  flush();
  return out;
}

// Words only: FTS5 query syntax must not be injected by a strategy text.
std::string fts_query(const std::string& text) {
  std::set<std::string> words;
  std::string w;
  auto flush = [&] {
    if (w.size() >= 3) words.insert(w);
    w.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else flush();
  }
  flush();
  std::string q;
  for (const auto& word : words) q += (q.empty() ? "\"" : " OR \"") + word + "\"";
  return q;
}

}  // namespace

std::string PlaybookSection::render() const { return fmt::format("### {} — {}\n{}", title, heading, body); }

KnowledgeIndex::KnowledgeIndex(KnowledgeIndex&& o) noexcept : db_(o.db_), sections_(std::move(o.sections_)) { o.db_ = nullptr; }
KnowledgeIndex::~KnowledgeIndex() {
  if (db_) sqlite3_close(db_);
}

Result<KnowledgeIndex> KnowledgeIndex::open(const std::filesystem::path& dir) {
  KnowledgeIndex k;
  if (sqlite3_open(":memory:", &k.db_) != SQLITE_OK) return Error{"cannot open an in-memory SQLite database"};
  char* err = nullptr;
  if (sqlite3_exec(k.db_, "CREATE VIRTUAL TABLE sections USING fts5(heading, body, tokenize='porter')", nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "?";
    sqlite3_free(err);
    return Error{"the playbook index needs SQLite's FTS5: " + m};
  }
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".md") files.push_back(e.path());
  if (files.empty()) return Error{fmt::format("{}: no playbook files (*.md)", dir.string())};
  std::sort(files.begin(), files.end());
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(k.db_, "INSERT INTO sections(rowid, heading, body) VALUES (?, ?, ?)", -1, &insert, nullptr);
  for (const auto& f : files) {
    auto text = core::read_text(f);
    if (!text) continue;
    for (auto& s : split_sections(f.filename().string(), *text)) {
      k.sections_.push_back(std::move(s));
      const auto& added = k.sections_.back();
      sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(k.sections_.size()));
      sqlite3_bind_text(insert, 2, (added.title + " " + added.heading).c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert, 3, added.body.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(insert);
  return k;
}

std::vector<PlaybookSection> KnowledgeIndex::search(const std::string& query, int limit) const {
  std::vector<PlaybookSection> out;
  std::string q = fts_query(query);
  if (q.empty()) return out;
  sqlite3_stmt* st = nullptr;
  // Headings weigh more than bodies.
  if (sqlite3_prepare_v2(db_, "SELECT rowid FROM sections WHERE sections MATCH ? ORDER BY bm25(sections, 4.0, 1.0) LIMIT ?", -1, &st, nullptr) != SQLITE_OK)
    return out;
  sqlite3_bind_text(st, 1, q.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, limit);
  while (sqlite3_step(st) == SQLITE_ROW) {
    auto id = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
    if (id >= 1 && id <= sections_.size()) out.push_back(sections_[id - 1]);
  }
  sqlite3_finalize(st);
  return out;
}

}  // namespace kforge::agents
