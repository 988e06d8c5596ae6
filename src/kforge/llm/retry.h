#pragma once
// When to try a failed call again and how long to wait: exponential back-off with jitter, or
// the server's Retry-After (capped), and a sleep that ends early when the call is cancelled.

#include <atomic>
#include <optional>

namespace kforge::llm {

struct RetryPolicy {
  int retries = 3;                 // attempts after the first, on 429, 5xx and network errors
  double initial_backoff_s = 1.0;  // before the 2nd attempt; doubles each time
  double max_backoff_s = 30.0;
  double retry_after_cap_s = 60.0;  // a server asking for longer is retried after this
};

// The wait after failed attempt `attempt` (0-based). With a Retry-After: that, capped. Without:
// initial × 2^attempt, capped at max_backoff, scaled by 0.5 + 0.5 × jitter (jitter in [0, 1)),
// so parallel callers that failed together do not come back together.
double backoff_delay(const RetryPolicy& policy, int attempt, std::optional<double> retry_after_s,
                     double jitter);

// A random jitter in [0, 1).
double random_jitter();

// Sleeps `seconds`, in short slices so a set cancellation flag ends it early (then: false).
bool sleep_unless_cancelled(double seconds, const std::atomic<bool>* cancel);

}  // namespace kforge::llm
