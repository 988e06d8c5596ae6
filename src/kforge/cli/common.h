#pragma once
// What every subcommand shares: loading a task named on the command line, the compiler with
// its cache, number formatting, progress on stderr, and the errors a command throws (errors.h).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kforge/cli/errors.h"
#include "kforge/core/result.h"
#include "kforge/core/task_spec.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/quiet_wait.h"
#include "kforge/targets/target.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::cli {

// Creates the state folder (KFORGE_DIR, or .kforge in the working folder) and makes sure kforge can
// write in it; a UsageError that names the folder and the fix when it cannot.
void require_writable_state_dir();

core::TaskSpec load_task_arg(const std::string& task);
// The host compiler: cpu kernels, and every target's references and generators.
std::unique_ptr<toolchain::CppCompiler> make_compiler();
// --target: the target of that name ("" or unset: cpp); a UsageError naming the choices.
const target::Target& target_arg(const std::string& name);
// What the user configured for toolchains (KFORGE_CXX, KFORGE_CUDA_HOME, ...).
target::ToolchainSettings toolchain_settings();
// --partner: libtorch (or baseline: the task's baseline.cpp), reference, or a peer (torch,
// torch-compile, torch-compile-max, xla). A usage error names the choices.
void apply_partner(const std::string& partner, eval::EvalOptions& opt);
// --dtype and --partner (or --peers) against the target: a UsageError, before anything is built,
// for a dtype its kernels do not compute in or a partner (a peer, the reference) that does not
// pair them.
void check_dtype_for_target(const target::Target& target, const std::string& dtype);
void check_partner_for_target(const target::Target& target, const std::string& partner, bool peers);

// "a,b,,c" → {"a", "b", "c"}: the comma-separated lists options take (--tasks, --peer-set).
std::vector<std::string> split_commas(const std::string& s);
// --peer-set of bench, --report-peers of auto: the peers named (baseline = libtorch), in order;
// empty: all five; "none": none. `option` names the option in a UsageError for an unknown peer.
std::vector<std::string> peer_list(const std::string& given, std::string_view option);
// --beat of auto and search: a partner, or "fastest": the peer bench --peers recorded as fastest
// for this task, size and thread count on this machine, else libtorch (said on stderr).
std::string resolve_beat(const std::string& beat, const std::string& task, const std::string& size,
                         int threads, const eval::MachineProfile& m);
// The machine lock of this command: one measurement at a time among its threads and among every
// kforge process of the user (a file lock in the per-user cache; KFORGE_LOCK_WAIT_S bounds a wait,
// default 600). Waits are told on the progress lines.
std::unique_ptr<eval::MachineLock> make_machine_lock();
// The wait for a quiet machine before each timing of this process: at most KFORGE_QUIET_WAIT_S
// seconds (default 60; a quarter of it while the machine stays busy; 0 never waits), told on the
// progress lines. One per process: whether the machine stayed busy is known across its timings.
eval::QuietWaiter& quiet_waiter();
// This machine's profile and peaks from the per-user cache, measured (with `lock`) when needed,
// in at most `budget_s` seconds (0: KFORGE_PEAK_BUDGET_S, default 30).
Result<eval::MachineProfile> this_machine(eval::MachineLock* lock, bool remeasure = false,
                                          double budget_s = 0);

// Progress lines on stderr ("  … compiling"), only when stderr is a terminal or KFORGE_PROGRESS=1.
void progress(std::string_view message);
bool progress_enabled();

std::string format_ms(double ms);
std::string format_ratio(double r);  // "1.52x"
std::string format_percent(double fraction);
std::string format_count(double v);  // 1.2e9 → "1.20 G"
// 1234567 → "1,234,567"; "~1,234,567" when the count is kforge's estimate (the provider reported
// none).
std::string format_tokens(std::int64_t n, bool estimated = false);
// The footnote under a table with estimated token counts.
inline constexpr const char* kEstimatedTokensNote =
    "~ estimated: the provider reported no usage, so kforge counted the text's tokens (letters, "
    "digits, punctuation)";

}  // namespace kforge::cli
