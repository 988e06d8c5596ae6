#pragma once
// The optimization playbook (knowledge/*.md), split into sections at its `##` headings and
// indexed with SQLite FTS5 (in memory: the playbook is small), so each step's prompt gets the
// few sections that match its task and its current problem.
//
// What a task computes decides which sections may be shown at all: a section carries tags (a
// `<!-- tags: gemm, conv -->` line under its heading, or under the file's title for all its
// sections) drawn from the task tags (bench/*/task.toml), and is shown only to tasks that share
// one, or to every task when tagged `any` (or not tagged). Words rank the eligible sections.
// A cross-entropy once got flash attention and paged KV caches because its words matched.

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
  std::vector<std::string> tags;  // empty: any task
  std::string render() const;     // "### title — heading\nbody"
  bool for_any_task() const;
  bool shares_a_tag(const std::vector<std::string>& task_tags) const;
};

class KnowledgeIndex {
 public:
  static Result<KnowledgeIndex> open(const std::filesystem::path& dir);
  KnowledgeIndex(KnowledgeIndex&&) noexcept;
  ~KnowledgeIndex();

  // The best `limit` sections for a task with `task_tags`: only sections for its tags or for any
  // task, ranked by a free-text query (BM25 over heading and body), the first always one that
  // shares a tag with the task when there is one.
  std::vector<PlaybookSection> select(const std::vector<std::string>& task_tags,
                                      const std::string& query, int limit) const;
  std::size_t size() const { return sections_.size(); }
  const std::vector<PlaybookSection>& sections() const { return sections_; }

 private:
  KnowledgeIndex() = default;
  std::vector<std::size_t> ranked(
      const std::string& query) const;  // indexes into sections_, best first
  sqlite3* db_ = nullptr;
  std::vector<PlaybookSection> sections_;
};

}  // namespace kforge::agents
