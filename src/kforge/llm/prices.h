#pragma once
// What a call costs: USD per million tokens for input, cached input and output, by
// "provider:model". Defaults for common models; kforge.toml's [prices."provider:model"] adds or
// overrides. A model with no price costs 0 and is flagged unpriced, never guessed.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kforge/llm/chat.h"

namespace kforge::llm {

struct Price {
  double input = 0;         // USD per million input tokens
  double output = 0;        // USD per million output tokens (reasoning included)
  double cached_input = 0;  // USD per million input tokens served from the provider's prompt cache
};

class PriceTable {
 public:
  // The built-in list (prices.cpp says where each comes from).
  static PriceTable defaults();

  void set(const std::string& key, Price price);  // key: "provider:model"
  // Exact "provider:model" first, then the model without a dated or numbered snapshot suffix
  // ("gpt-4o-2024-08-06" → "gpt-4o", "claude-sonnet-4-5-20250929" → "claude-sonnet-4-5",
  // "gemini-2.0-flash-001" → "gemini-2.0-flash").
  std::optional<Price> find(std::string_view provider, std::string_view model) const;
  const std::map<std::string, Price, std::less<>>& entries() const { return prices_; }

 private:
  std::map<std::string, Price, std::less<>> prices_;
};

// (uncached input × input + cached × cached_input + output × output) / 1e6.
double cost_usd(const Price& price, const Usage& usage);

}  // namespace kforge::llm
