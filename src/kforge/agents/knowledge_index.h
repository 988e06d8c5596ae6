#pragma once
// The optimization playbook (knowledge/*.md), split into sections at its `##` headings and
// indexed with SQLite FTS5 (in memory: the playbook is small), so each step's prompt gets the
// few sections that match its task and its current problem.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/core/result.h"

struct sqlite3;

namespace kforge::agents {

struct PlaybookSection {
  std::string file;     // "softmax.md"
  std::string title;    // the file's # title
  std::string heading;  // the ## heading
  std::string body;
  std::string render() const;  // "### title — heading\nbody"
};

class KnowledgeIndex {
 public:
  static Result<KnowledgeIndex> open(const std::filesystem::path& dir);
  KnowledgeIndex(KnowledgeIndex&&) noexcept;
  ~KnowledgeIndex();

  // The best `limit` sections for a free-text query (BM25 over heading and body).
  std::vector<PlaybookSection> search(const std::string& query, int limit) const;
  std::size_t size() const { return sections_.size(); }

 private:
  KnowledgeIndex() = default;
  sqlite3* db_ = nullptr;
  std::vector<PlaybookSection> sections_;
};

}  // namespace kforge::agents
