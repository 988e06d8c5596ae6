// Shared CLI helpers.
#include "kforge/cli/common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "kforge/cli/settings.h"
#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/fastest_peer.h"
#include "kforge/eval/peer_table.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/llm/interrupt.h"

namespace kforge::cli {

core::TaskSpec load_task_arg(const std::string& task) {
  auto dir = core::find_task_dir(task);
  if (!dir) throw UsageError(dir.error().message);
  auto spec = core::load_task(*dir);
  if (!spec) throw UsageError(spec.error().message);
  return std::move(*spec);
}

target::ToolchainSettings toolchain_settings() {
  target::ToolchainSettings o;
  // Compiled artifacts and the ATen header depend on the compiler, flags and CPU, not on the
  // project: one cache per user, shared by every working directory.
  o.cache_dir = core::user_cache_dir();
  o.include_dir = core::source_dir() / "bench" / "include";
  // A compiler installed outside /usr (KFORGE_CXX=/opt/gcc-14/bin/g++) needs its trees readable
  // inside the compile sandbox (KFORGE_TOOLCHAIN_DIRS=/opt/gcc-14).
  const Settings s = current_settings();
  o.cxx = s.cxx;
  for (const auto& d : s.toolchain_dirs) o.toolchain_dirs.emplace_back(d);
  if (!s.cuda_home.empty()) o.cuda_home = s.cuda_home;
  o.cuda_arch = s.cuda_arch;
  // Only a command that installed the Ctrl-C handler ever sees it set.
  o.cancel = llm::interrupt_flag();
  return o;
}

std::unique_ptr<toolchain::CppCompiler> make_compiler() {
  return target::make_cpp_compiler(toolchain_settings());
}

const target::Target& target_arg(const std::string& name) {
  if (name.empty()) return target::default_target();
  if (const auto* t = target::find_target(name)) return *t;
  std::string names;
  for (const auto& n : target::target_names()) names += (names.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("unknown target '{}' (kforge knows {})", name, names));
}

std::unique_ptr<eval::MachineLock> make_machine_lock() {
  const double bound_s = current_settings().lock_wait_s;
  auto across = eval::ProcessLock::open({core::user_cache_dir() / "machine.lock", bound_s,
                                         [](std::string_view m) { progress(m); },
                                         "KFORGE_LOCK_WAIT_S", llm::interrupt_flag()});
  if (!across) {
    fmt::print(stderr,
               "kforge: warning: {}; timings are not kept apart from other kforge processes\n",
               across.error().message);
    return std::make_unique<eval::MachineLock>();
  }
  return std::make_unique<eval::MachineLock>(std::move(*across));
}

eval::QuietWaiter& quiet_waiter() {
  static eval::QuietWaiter waiter(current_settings().quiet_wait_s,
                                  [](std::string_view m) { progress(m); });
  [[maybe_unused]] static const bool wired = (waiter.set_cancel(llm::interrupt_flag()), true);
  return waiter;
}

Result<eval::MachineProfile> this_machine(eval::MachineLock* lock, bool remeasure,
                                          double budget_s) {
  eval::MachineProfileOptions o;
  o.remeasure = remeasure;
  o.lock = lock;
  o.progress = [](std::string_view m) { progress(m); };
  o.measure.budget_s = budget_s > 0 ? budget_s : current_settings().peak_budget_s;
  return eval::machine_profile(core::user_cache_dir(), o);
}

// KFORGE_PROGRESS=0 or --quiet turns it off (settings.cpp says why it is on by default).
bool progress_enabled() { return current_settings().progress; }

// Each line carries the seconds since the command started, so a long step shows its length.
void progress(std::string_view message) {
  static const auto start = std::chrono::steady_clock::now();
  if (!progress_enabled()) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "  … [{:5.1f} s] {}\n", s, message);
}

std::string format_ms(double ms) {
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.4f}", ms);
}

std::string format_ratio(double r) { return fmt::format("{:.2f}x", r); }
std::string format_percent(double f) { return fmt::format("{:.1f}%", 100 * f); }

std::string format_count(double v) {
  if (v >= 1e12) return fmt::format("{:.2f} T", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.2f} k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string format_tokens(std::int64_t n, bool estimated) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return std::string(estimated ? "~" : "") + (n < 0 ? "-" : "") + out;
}

void require_writable_state_dir() {
  const auto dir = core::state_dir();
  auto fail = [&](const std::string& why) {
    throw UsageError(
        fmt::format("the state folder {} cannot be used: {}; set KFORGE_DIR to a folder you can "
                    "write, or run kforge "
                    "from one",
                    dir.string(), why));
  };
  // Probe by writing, then leave no trace: a command refused for bad input writes nothing.
  std::error_code ec;
  std::filesystem::path first_missing;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    first_missing = p;
    if (p == p.parent_path()) break;
  }
  if (auto st = core::ensure_dir(dir); !st) fail(st.error().message);
  const auto probe = dir / fmt::format(".write-test-{}", ::getpid());
  auto wrote = core::write_atomic(probe, "ok");
  std::filesystem::remove(probe, ec);
  if (!first_missing.empty()) std::filesystem::remove_all(first_missing, ec);
  if (!wrote) fail(wrote.error().message);
}

std::string resolve_beat(const std::string& beat, const std::string& task, const std::string& size,
                         int threads, const eval::MachineProfile& m) {
  if (beat != "fastest") return beat;
  const auto file = eval::fastest_peer_file(m);
  auto cached =
      file.empty() ? Result<std::optional<std::string>>(std::optional<std::string>{})
                   : eval::cached_fastest_peer(file, eval::fastest_peer_entry(task, size, threads));
  if (!cached) {
    fmt::print(stderr, "kforge: {}; aiming at libtorch\n", cached.error().message);
    return "libtorch";
  }
  if (!*cached) {
    fmt::print(stderr,
               "kforge: no fastest peer measured for {} at size {} with {} thread{} on this "
               "machine (kforge bench --peers --tasks {} --size {} --threads {}); aiming at "
               "libtorch\n",
               task, size, threads, threads == 1 ? "" : "s", task, size, threads);
    return "libtorch";
  }
  progress(fmt::format("aiming at {}, the fastest peer bench --peers measured here", **cached));
  return **cached;
}

void apply_partner(const std::string& partner, eval::EvalOptions& opt) {
  opt.peer.clear();
  opt.partner = eval::EvalOptions::Partner::baseline;
  if (partner == "reference")
    opt.partner = eval::EvalOptions::Partner::reference;
  else if (eval::is_peer(partner))
    opt.peer = partner;
  else if (partner != "baseline" && partner != "libtorch")
    throw UsageError(
        fmt::format("--partner must be libtorch (or baseline), reference, torch, torch-compile, "
                    "torch-compile-max or xla, not '{}'",
                    partner));
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(std::move(item));
      item.clear();
    }
  }
  return out;
}

std::vector<std::string> peer_list(const std::string& given, std::string_view option) {
  if (given == "none") return {};
  std::vector<std::string> peers = split_commas(given);
  if (peers.empty()) return {std::begin(eval::kAllPeers), std::end(eval::kAllPeers)};
  for (auto& p : peers) {
    if (p == "baseline") p = "libtorch";
    if (p != "libtorch" && !eval::is_peer(p))
      throw UsageError(fmt::format(
          "{}: unknown peer '{}' (libtorch, torch, torch-compile, torch-compile-max, xla, or none)",
          option, p));
  }
  return peers;
}

void check_partner_for_target(const target::Target& target, const std::string& partner,
                              bool peers) {
  if (peers ? target.peers_apply() : target.accepts_partner(partner)) return;
  throw UsageError(
      fmt::format("{} the cpp target's: the {} target's partner is the task's baseline for it ({})",
                  peers ? "--peers is" : fmt::format("--partner {} is", partner), target.name(),
                  target.summary()));
}

void check_dtype_for_target(const target::Target& target, const std::string& dtype) {
  if (auto st = core::check_dtype_name(dtype); !st) throw UsageError(st.error().message);
  if (target.accepts_dtype(dtype)) return;
  std::string takers;
  for (const auto& n : target::target_names())
    if (target::find_target(n)->accepts_dtype(dtype)) takers += (takers.empty() ? "" : ", ") + n;
  throw UsageError(
      fmt::format("--dtype {} is the {} target's: {} kernels take the task's own dtypes", dtype,
                  takers.empty() ? "no" : takers, target.name()));
}

}  // namespace kforge::cli
