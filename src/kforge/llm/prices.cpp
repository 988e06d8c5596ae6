// The default price list, USD per million tokens, from the providers' published price pages
// (standard tier, prompts under any long-context threshold). Cached input is the provider's
// cache-read price: OpenAI's cached-input column, Anthropic's cache hits (0.1 × input), Gemini's
// context-caching price. Anthropic's cache writes are counted as plain input. Change or extend
// them in kforge.toml: [prices."openai:gpt-4o"] input = 2.5, output = 10.0, cached_input = 1.25
#include "kforge/llm/prices.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace kforge::llm {
namespace {

struct DefaultPrice {
  const char* key;
  Price price;
};

constexpr DefaultPrice kDefaults[] = {
    // OpenAI
    {"openai:gpt-5", {1.25, 10.00, 0.125}},
    {"openai:gpt-5-mini", {0.25, 2.00, 0.025}},
    {"openai:gpt-5-nano", {0.05, 0.40, 0.005}},
    {"openai:gpt-4.1", {2.00, 8.00, 0.50}},
    {"openai:gpt-4.1-mini", {0.40, 1.60, 0.10}},
    {"openai:gpt-4.1-nano", {0.10, 0.40, 0.025}},
    {"openai:gpt-4o", {2.50, 10.00, 1.25}},
    {"openai:gpt-4o-mini", {0.15, 0.60, 0.075}},
    {"openai:o1", {15.00, 60.00, 7.50}},
    {"openai:o3", {2.00, 8.00, 0.50}},
    {"openai:o3-mini", {1.10, 4.40, 0.55}},
    {"openai:o4-mini", {1.10, 4.40, 0.275}},
    // Anthropic
    {"anthropic:claude-opus-4-5", {5.00, 25.00, 0.50}},
    {"anthropic:claude-opus-4-1", {15.00, 75.00, 1.50}},
    {"anthropic:claude-opus-4", {15.00, 75.00, 1.50}},
    {"anthropic:claude-sonnet-4-5", {3.00, 15.00, 0.30}},
    {"anthropic:claude-sonnet-4", {3.00, 15.00, 0.30}},
    {"anthropic:claude-3-7-sonnet", {3.00, 15.00, 0.30}},
    {"anthropic:claude-3-5-sonnet", {3.00, 15.00, 0.30}},
    {"anthropic:claude-haiku-4-5", {1.00, 5.00, 0.10}},
    {"anthropic:claude-3-5-haiku", {0.80, 4.00, 0.08}},
    // Google Gemini (2.5 Pro: prompts up to 200k tokens)
    {"gemini:gemini-2.5-pro", {1.25, 10.00, 0.31}},
    {"gemini:gemini-2.5-flash", {0.30, 2.50, 0.075}},
    {"gemini:gemini-2.5-flash-lite", {0.10, 0.40, 0.025}},
    {"gemini:gemini-2.0-flash", {0.10, 0.40, 0.025}},
};

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "gpt-4o-2024-08-06" → "gpt-4o"; "claude-3-5-haiku-20241022" → "claude-3-5-haiku";
// "gemini-2.0-flash-001" → "gemini-2.0-flash"; "…-latest" → "…". Anything else: unchanged.
std::string_view without_snapshot(std::string_view model) {
  auto dash = model.rfind('-');
  if (dash == std::string_view::npos) return model;
  std::string_view tail = model.substr(dash + 1), head = model.substr(0, dash);
  if (tail == "latest" || (all_digits(tail) && (tail.size() == 8 || tail.size() == 3))) return head;
  // YYYY-MM-DD: three numeric parts.
  if (tail.size() == 2 && all_digits(tail) && model.size() >= 11) {
    std::string_view date = model.substr(model.size() - 11);  // "-2024-08-06"
    if (date[0] == '-' && date[5] == '-' && date[8] == '-' && all_digits(date.substr(1, 4)) &&
        all_digits(date.substr(6, 2)))
      return model.substr(0, model.size() - 11);
  }
  return model;
}

}  // namespace

PriceTable PriceTable::defaults() {
  PriceTable t;
  for (const auto& d : kDefaults) t.set(d.key, d.price);
  return t;
}

void PriceTable::set(const std::string& key, Price price) { prices_[key] = price; }

std::optional<Price> PriceTable::find(std::string_view provider, std::string_view model) const {
  if (auto it = prices_.find(fmt::format("{}:{}", provider, model)); it != prices_.end())
    return it->second;
  std::string_view base = without_snapshot(model);
  if (base != model)
    if (auto it = prices_.find(fmt::format("{}:{}", provider, base)); it != prices_.end())
      return it->second;
  return std::nullopt;
}

double cost_usd(const Price& price, const Usage& usage) {
  std::int64_t cached = std::clamp<std::int64_t>(usage.cached_tokens, 0, usage.input_tokens);
  double uncached = static_cast<double>(usage.input_tokens - cached);
  return (uncached * price.input + static_cast<double>(cached) * price.cached_input +
          static_cast<double>(usage.output_tokens) * price.output) /
         1e6;
}

}  // namespace kforge::llm
