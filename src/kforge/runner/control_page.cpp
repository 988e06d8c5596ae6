// Raw futex(2) calls: the only primitive that lets two processes wait on a shared word.
#include "kforge/runner/control_page.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

namespace kforge::runner {

void futex_wake_all(std::atomic<std::uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
          0);
}

void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                std::optional<std::chrono::nanoseconds> timeout) {
  timespec ts{};
  if (timeout) {
    auto ns = std::max<long long>(0, timeout->count());
    ts.tv_sec = static_cast<time_t>(ns / 1000000000LL);
    ts.tv_nsec = static_cast<long>(ns % 1000000000LL);
  }
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected,
          timeout ? &ts : nullptr, nullptr, 0);
}

}  // namespace kforge::runner
