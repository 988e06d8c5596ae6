// The SIGINT handler: async-signal-safe, it only stores to a lock-free atomic, writes one line
// with write(2), or re-raises.
#include "kforge/llm/interrupt.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <mutex>

namespace kforge::llm {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// Said the moment the first Ctrl-C arrives, before any step has noticed it: a user who sees
// nothing presses again and loses what the clean stop would have saved.
constexpr char kAcknowledged[] =
    "\nkforge: Ctrl-C: stopping what runs now and saving what is done (Ctrl-C again to quit at "
    "once)\n";

void on_sigint(int) {
  if (g_interrupted.exchange(true)) {
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return;
  }
  const int saved = errno;
  (void)!write(STDERR_FILENO, kAcknowledged, sizeof kAcknowledged - 1);
  errno = saved;
}

}  // namespace

const std::atomic<bool>* install_interrupt_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
  });
  return &g_interrupted;
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

void clear_interrupt() { g_interrupted = false; }

bool interrupt_requested() { return g_interrupted.load(); }

}  // namespace kforge::llm
