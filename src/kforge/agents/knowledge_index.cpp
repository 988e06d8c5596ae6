// FTS5 over playbook sections; the query's words are OR-ed so any overlap counts, and BM25 ranks.
// The sections' tags, bound and ISA decide which may be ranked at all.
#include "kforge/agents/knowledge_index.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "kforge/core/fs.h"

namespace kforge::agents {
namespace {

// "<!-- tags: gemm, conv -->" → {"tags", {"gemm", "conv"}}, likewise "bound:" and "isa:"; nullopt
// for any other line (an HTML comment with another word stays in the body).
struct Annotation {
  std::string key;
  std::vector<std::string> values;
};

std::optional<Annotation> annotation_line(const std::string& line) {
  static const std::regex pattern(R"(^\s*<!--\s*(tags|bound|isa):\s*(.*?)\s*-->\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, pattern)) return std::nullopt;
  Annotation a{m[1].str(), {}};
  std::stringstream list(m[2].str());
  for (std::string t; std::getline(list, t, ',');) {
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    if (!t.empty()) a.values.push_back(t);
  }
  return a;
}

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return v == a; });
}

// Sets `a` on `sec` (the file's defaults before its first section). A misspelt bound or ISA would
// hide a section from every task: an error naming the value and what is allowed.
Status annotate(PlaybookSection& sec, const Annotation& a) {
  if (a.key == "tags") {
    sec.tags = a.values;
    return ok_status();
  }
  if (a.key == "bound") {
    if (a.values.size() != 1 || !one_of(a.values[0], {"memory", "compute", "any"}))
      return Error{
          fmt::format("bound: '{}' is not one of memory, compute, any", fmt::join(a.values, ", "))};
    sec.bound = a.values[0] == "any" ? "" : a.values[0];
    return ok_status();
  }
  sec.isa.clear();
  for (const auto& v : a.values) {
    if (!one_of(v, {"avx512", "avx2", "sse", "any"}))
      return Error{fmt::format("isa: '{}' is not one of avx512, avx2, sse, any", v)};
    sec.isa.push_back(v);
  }
  if (std::find(sec.isa.begin(), sec.isa.end(), "any") != sec.isa.end()) sec.isa.clear();
  return ok_status();
}

Result<std::vector<PlaybookSection>> split_sections(const std::string& file,
                                                    const std::string& text) {
  std::vector<PlaybookSection> out;
  PlaybookSection file_wide{file, "", "", "", {}, "", {}};  // its title and annotations
  PlaybookSection cur;
  std::istringstream in(text);
  auto flush = [&] {
    if (!cur.heading.empty()) out.push_back(cur);
  };
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      flush();
      cur = file_wide;
      cur.heading = line.substr(3);
    } else if (line.rfind("# ", 0) == 0) {
      file_wide.title = line.substr(2);
    } else if (auto a = annotation_line(line)) {
      auto& target = cur.heading.empty() ? file_wide : cur;
      if (auto st = annotate(target, *a); !st)
        return Error{
            fmt::format("{}: {}: {}", file,
                        target.heading.empty() ? "# " + target.title : "## " + target.heading,
                        st.error().message)};
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
    if (std::isalnum(static_cast<unsigned char>(c)))
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      flush();
  }
  flush();
  std::string q;
  for (const auto& word : words) q += (q.empty() ? "\"" : " OR \"") + word + "\"";
  return q;
}

}  // namespace

std::string PlaybookSection::render() const {
  return fmt::format("### {} — {}\n{}", title, heading, body);
}

std::string PlaybookSection::name() const { return fmt::format("{} — {}", title, heading); }

bool PlaybookSection::for_any_task() const {
  return tags.empty() || std::find(tags.begin(), tags.end(), "any") != tags.end();
}

bool PlaybookSection::shares_a_tag(const std::vector<std::string>& task_tags) const {
  for (const auto& t : tags)
    if (std::find(task_tags.begin(), task_tags.end(), t) != task_tags.end()) return true;
  return false;
}

bool PlaybookSection::fits(const PlaybookFit& fit) const {
  if (!shares_a_tag(fit.task_tags) && !for_any_task()) return false;
  if (!bound.empty() && !fit.bound.empty() && bound != fit.bound) return false;
  return isa.empty() || fit.isa.empty() || std::find(isa.begin(), isa.end(), fit.isa) != isa.end();
}

KnowledgeIndex::KnowledgeIndex(KnowledgeIndex&& o) noexcept
    : db_(o.db_), sections_(std::move(o.sections_)) {
  o.db_ = nullptr;
}
KnowledgeIndex::~KnowledgeIndex() {
  if (db_) sqlite3_close(db_);
}

Result<KnowledgeIndex> KnowledgeIndex::open(const std::filesystem::path& dir) {
  KnowledgeIndex k;
  if (sqlite3_open(":memory:", &k.db_) != SQLITE_OK)
    return Error{"cannot open an in-memory SQLite database"};
  char* err = nullptr;
  if (sqlite3_exec(k.db_,
                   "CREATE VIRTUAL TABLE sections USING fts5(heading, body, tokenize='porter')",
                   nullptr, nullptr, &err) != SQLITE_OK) {
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
  sqlite3_prepare_v2(k.db_, "INSERT INTO sections(rowid, heading, body) VALUES (?, ?, ?)", -1,
                     &insert, nullptr);
  for (const auto& f : files) {
    auto text = core::read_text(f);
    if (!text) continue;
    auto sections = split_sections(f.filename().string(), *text);
    if (!sections) {
      sqlite3_finalize(insert);
      return with_context(sections.error(), dir.string());
    }
    for (auto& s : *sections) {
      k.sections_.push_back(std::move(s));
      const auto& added = k.sections_.back();
      sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(k.sections_.size()));
      sqlite3_bind_text(insert, 2, (added.title + " " + added.heading).c_str(), -1,
                        SQLITE_TRANSIENT);
      sqlite3_bind_text(insert, 3, added.body.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(insert);
  return k;
}

std::vector<std::size_t> KnowledgeIndex::ranked(const std::string& query) const {
  std::vector<std::size_t> out;
  std::string q = fts_query(query);
  if (q.empty()) return out;
  sqlite3_stmt* st = nullptr;
  // Headings weigh more than bodies.
  if (sqlite3_prepare_v2(
          db_,
          "SELECT rowid FROM sections WHERE sections MATCH ? ORDER BY bm25(sections, 4.0, 1.0)", -1,
          &st, nullptr) != SQLITE_OK)
    return out;
  sqlite3_bind_text(st, 1, q.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(st) == SQLITE_ROW) {
    auto id = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
    if (id >= 1 && id <= sections_.size()) out.push_back(id - 1);
  }
  sqlite3_finalize(st);
  return out;
}

std::vector<PlaybookSection> KnowledgeIndex::select(const PlaybookFit& fit,
                                                    const std::string& query, int limit) const {
  // The query's matches first, then every other section in file order.
  std::vector<std::size_t> order = ranked(query);
  std::vector<bool> seen(sections_.size());
  for (auto i : order) seen[i] = true;
  for (std::size_t i = 0; i < sections_.size(); ++i)
    if (!seen[i]) order.push_back(i);
  std::vector<std::size_t> chosen;
  std::set<std::string> names;  // a heading repeated under one title is still one section
  auto choose = [&](std::size_t i) {
    if (names.insert(sections_[i].name()).second) chosen.push_back(i);
  };
  // The first section is about what the task computes, when the playbook has one that fits.
  for (auto i : order)
    if (sections_[i].shares_a_tag(fit.task_tags) && sections_[i].fits(fit)) {
      choose(i);
      break;
    }
  for (auto i : order) {
    if (static_cast<int>(chosen.size()) >= limit) break;
    const auto& sec = sections_[i];
    // Sections no word matched are filler: only those about the task's own tags.
    if (sec.fits(fit) && (seen[i] || sec.shares_a_tag(fit.task_tags))) choose(i);
  }
  std::vector<PlaybookSection> out;
  out.reserve(chosen.size());
  for (auto i : chosen) out.push_back(sections_[i]);
  return out;
}

}  // namespace kforge::agents
