// Budget checks.
#include "kforge/llm/budget.h"

#include <fmt/format.h>

namespace kforge::llm {

LlmStatus Budget::check() const {
  std::lock_guard lock(mutex_);
  if (limits_.max_usd > 0 && usd_ >= limits_.max_usd)
    return LlmError{ErrorKind::budget_exhausted,
                    fmt::format("budget exhausted: ${:.4f} spent of the ${:.2f} allowed "
                                "(--max-usd); stopping before the next model call",
                                usd_, limits_.max_usd)};
  if (limits_.max_tokens > 0 && tokens_ >= limits_.max_tokens)
    return LlmError{ErrorKind::budget_exhausted,
                    fmt::format("budget exhausted: {} tokens used of the {} allowed "
                                "(--max-tokens); stopping before the next model call",
                                tokens_, limits_.max_tokens)};
  return Ok{};
}

void Budget::charge(double usd, std::int64_t tokens) {
  std::lock_guard lock(mutex_);
  usd_ += usd;
  tokens_ += tokens;
}

double Budget::spent_usd() const {
  std::lock_guard lock(mutex_);
  return usd_;
}

std::int64_t Budget::spent_tokens() const {
  std::lock_guard lock(mutex_);
  return tokens_;
}

}  // namespace kforge::llm
