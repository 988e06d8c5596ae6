// Back-off arithmetic and the cancellable sleep.
#include "kforge/llm/retry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

namespace kforge::llm {

double backoff_delay(const RetryPolicy& policy, int attempt, std::optional<double> retry_after_s,
                     double jitter) {
  if (retry_after_s) return std::clamp(*retry_after_s, 0.0, policy.retry_after_cap_s);
  double base = std::min(policy.max_backoff_s, policy.initial_backoff_s * std::pow(2.0, attempt));
  return base * (0.5 + 0.5 * std::clamp(jitter, 0.0, 1.0));
}

double random_jitter() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

bool sleep_unless_cancelled(double seconds, const std::atomic<bool>* cancel) {
  using clock = std::chrono::steady_clock;
  auto end = clock::now() +
             std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
  while (clock::now() < end) {
    if (cancel && cancel->load()) return false;
    auto left = end - clock::now();
    std::this_thread::sleep_for(std::min<clock::duration>(left, std::chrono::milliseconds(50)));
  }
  return !(cancel && cancel->load());
}

}  // namespace kforge::llm
