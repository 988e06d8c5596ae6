#pragma once
// The llm layer's part of kforge.toml: which model each role uses, prices, and how calls behave.
//   [models]  default = "anthropic:claude-sonnet-4-5"   planner = "openai:o3"   coder = …
//   [prices."openai:gpt-4o"]  input = 2.5  output = 10.0  cached_input = 1.25   (USD per 1M tokens)
//   [llm]     timeout_s = 600  connect_timeout_s = 10  retries = 3  cache = false
// Other tables belong to other layers and are left alone, except near misses of these three
// ([model], [llms]), which are typos. Unknown keys inside them are errors, with a "did you mean".

#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "kforge/core/result.h"
#include "kforge/llm/prices.h"

namespace kforge::llm {

// The keys [models] accepts: the agents' roles, and the model for any role not named.
inline constexpr std::array<std::string_view, 5> kModelRoles = {"default", "planner", "coder",
                                                                "debugger", "profiler"};

struct LlmConfig {
  std::map<std::string, std::string>
      models;  // role (or "default") → PROVIDER:MODEL, already validated
  PriceTable prices = PriceTable::defaults();
  double timeout_s = 600;  // a whole call (a stream included), per attempt
  double connect_timeout_s = 10;
  int retries = 3;             // extra attempts after 429, 5xx and network errors
  bool cache = false;          // the response cache: identical requests are answered from the store
  std::filesystem::path file;  // where this came from; empty: built-in defaults
};

// The file named by `path` (--config, or $KFORGE_CONFIG read by the CLI), else ./kforge.toml if it
// exists, else the defaults. A file that was named but is missing is an error.
Result<LlmConfig> load_config(const std::filesystem::path& path = {});

// Errors name the file, line, column and key: "kforge.toml:7:11: llm.retries: must be …".
Result<LlmConfig> parse_config(std::string_view toml_text, const std::filesystem::path& source);

}  // namespace kforge::llm
