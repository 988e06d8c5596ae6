// The SIGINT handler: async-signal-safe, it only stores to a lock-free atomic or re-raises.
#include "kforge/llm/interrupt.h"

#include <signal.h>

#include <mutex>

namespace kforge::llm {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void on_sigint(int) {
  if (g_interrupted.exchange(true)) {
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
  }
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

void clear_interrupt() { g_interrupted = false; }

bool interrupt_requested() { return g_interrupted.load(); }

}  // namespace kforge::llm
