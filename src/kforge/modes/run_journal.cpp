// Session folder plus store handle.
#include "kforge/modes/run_journal.h"

#include "kforge/core/fs.h"

namespace kforge::modes {

RunJournal::RunJournal(RunJournal&&) noexcept = default;
RunJournal& RunJournal::operator=(RunJournal&&) noexcept = default;
RunJournal::~RunJournal() = default;

Result<RunJournal> RunJournal::open(const std::filesystem::path& state_dir,
                                    const std::string& session_id) {
  RunJournal j;
  j.dir_ = state_dir / "sessions" / session_id;
  if (auto st = core::ensure_dir(j.dir_); !st) return st.error();
  auto ledger = RunLedger::open(state_dir);
  if (!ledger) return ledger.error();
  j.ledger_ = std::move(*ledger);
  return j;
}

Status RunJournal::write(const std::string& relative, const std::string& content) {
  return core::write_atomic(dir_ / relative, content);
}

}  // namespace kforge::modes
