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
//
// What the task is bound by at its size and what the machine's vectors are narrow it further: a
// section may say `<!-- bound: memory -->` (or `compute`) and `<!-- isa: avx2 -->` (the widest
// vector ISA it is written for: `avx512`, `avx2`, `sse`) under its heading, and is then not shown
// to a task bound by the other, or on a machine whose widest vectors are others. A real run got
// the AVX2 fallback on an AVX-512 machine and streaming-store advice for a compute-bound GEMM.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/core/result.h"

struct sqlite3;

namespace kforge::agents {

// Who a request is for: which sections may be shown to it at all.
struct PlaybookFit {
  std::vector<std::string> task_tags;
  std::string bound;  // "memory" or "compute" at the task's size; "": unknown, any section
  std::string isa;    // the machine's widest vectors ("avx512", "avx2", "sse"); "": any section
};

struct PlaybookSection {
  std::string file;     // "softmax.md"
  std::string title;    // the file's # title
  std::string heading;  // the ## heading
  std::string body;
  std::vector<std::string> tags;  // empty: any task
  std::string bound;              // "memory", "compute"; "": either
  std::vector<std::string> isa;   // the widest vectors it is written for; empty: any
  std::string render() const;     // "### title — heading\nbody"
  std::string name() const;       // "title — heading": what names it in a request
  bool for_any_task() const;
  bool shares_a_tag(const std::vector<std::string>& task_tags) const;
  // Its tags, bound and ISA allow it for `fit` (its words are not looked at).
  bool fits(const PlaybookFit& fit) const;
};

class KnowledgeIndex {
 public:
  static Result<KnowledgeIndex> open(const std::filesystem::path& dir);
  KnowledgeIndex(KnowledgeIndex&&) noexcept;
  ~KnowledgeIndex();

  // The best `limit` distinct sections for `fit`: only sections for its tags or for any task, of
  // its bound and ISA or of any, ranked by a free-text query (BM25 over heading and body), the
  // first always one that shares a tag with the task when there is one.
  std::vector<PlaybookSection> select(const PlaybookFit& fit, const std::string& query,
                                      int limit) const;
  // By tags alone (no bound, no ISA).
  std::vector<PlaybookSection> select(const std::vector<std::string>& task_tags,
                                      const std::string& query, int limit) const {
    return select(PlaybookFit{task_tags, "", ""}, query, limit);
  }
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
