#pragma once
// Where a run writes as it goes: .kforge/sessions/<id>/ (plans, kernels, evaluations, the report)
// and the store's runs and nodes tables (through its RunLedger). Each write happens when its step
// ends, so a killed run keeps everything up to its last completed step.

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/modes/run_ledger.h"

namespace kforge::modes {

class RunJournal {
 public:
  static Result<RunJournal> open(const std::filesystem::path& state_dir,
                                 const std::string& session_id);
  RunJournal(RunJournal&&) noexcept;
  RunJournal& operator=(RunJournal&&) noexcept;
  ~RunJournal();

  const std::filesystem::path& dir() const { return dir_; }
  RunLedger& ledger() { return *ledger_; }
  store::Database& db() { return ledger_->db(); }

  // Writes dir()/relative (atomically). The caller reports an error; it is not fatal to the run.
  Status write(const std::string& relative, const std::string& content);

 private:
  RunJournal() = default;
  std::filesystem::path dir_;
  std::unique_ptr<RunLedger> ledger_;
};

}  // namespace kforge::modes
