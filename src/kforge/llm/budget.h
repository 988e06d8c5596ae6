#pragma once
// The session's spending limit (--max-usd, --max-tokens). Callers consult it before each call,
// so a run stops between calls, never in the middle of writing a file; calls already in flight
// finish and are charged, so parallel calls can overshoot by what they spend.

#include <cstdint>
#include <mutex>

#include "kforge/llm/llm_error.h"

namespace kforge::llm {

struct BudgetLimits {
  double max_usd = 0;           // 0: no limit
  std::int64_t max_tokens = 0;  // input + output tokens; 0: no limit
};

class Budget {
 public:
  explicit Budget(BudgetLimits limits = {}) : limits_(limits) {}

  // budget_exhausted once the spending reached a limit.
  LlmStatus check() const;
  void charge(double usd, std::int64_t tokens);

  BudgetLimits limits() const { return limits_; }
  double spent_usd() const;
  std::int64_t spent_tokens() const;

 private:
  const BudgetLimits limits_;
  mutable std::mutex mutex_;
  double usd_ = 0;
  std::int64_t tokens_ = 0;
};

}  // namespace kforge::llm
