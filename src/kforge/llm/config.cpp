// kforge.toml → LlmConfig, every key checked, mistakes reported with file, line and key.
#include "kforge/llm/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "kforge/core/suggest.h"
#include "kforge/core/toml_checker.h"
#include "kforge/llm/model_spec.h"

namespace kforge::llm {
namespace {

using Checker = core::TomlChecker;

// A misspelt role ("defualt") would otherwise be ignored, and the model meant for it never used.
void check_role(Checker& c, const toml::node& node, const std::string& role,
                const std::string& field) {
  std::vector<std::string> roles(kModelRoles.begin(), kModelRoles.end());
  if (std::find(roles.begin(), roles.end(), role) != roles.end()) return;
  c.fail(&node, field,
         fmt::format("unknown role (expected {}){}", fmt::join(roles, ", "),
                     core::did_you_mean(role, roles)));
}

void parse_models(Checker& c, const toml::table& models, LlmConfig& config) {
  for (const auto& [key, node] : models) {
    std::string field = "models." + std::string(key.str());
    check_role(c, node, std::string(key.str()), field);
    if (!node.is_string()) {
      c.fail(&node, field, "must be a string \"PROVIDER:MODEL\"");
      continue;
    }
    auto spec = parse_model_spec(node.as_string()->get());
    if (!spec) {
      c.fail(&node, field, spec.error().message);
      continue;
    }
    config.models[std::string(key.str())] = spec->text;
  }
}

void parse_prices(Checker& c, const toml::table& prices, LlmConfig& config) {
  for (const auto& [key, node] : prices) {
    std::string name(key.str());
    std::string field = fmt::format("prices.\"{}\"", name);
    if (name.find(':') == std::string::npos) {
      c.fail(&node, field, "the key must be \"provider:model\", e.g. [prices.\"openai:gpt-4o\"]");
      continue;
    }
    if (!node.is_table()) {
      c.fail(&node, field,
             "must be a table with input, output and optionally cached_input (USD per million "
             "tokens)");
      continue;
    }
    const toml::table& t = *node.as_table();
    Price price;
    bool has_input = false, has_output = false, has_cached = false;
    for (const auto& [k, v] : t) {
      std::string f = field + "." + std::string(k.str());
      double value = c.number(v, f);
      if (value < 0) c.fail(&v, f, "must not be negative");
      if (k.str() == "input") {
        price.input = value;
        has_input = true;
      } else if (k.str() == "output") {
        price.output = value;
        has_output = true;
      } else if (k.str() == "cached_input") {
        price.cached_input = value;
        has_cached = true;
      } else {
        c.unknown_key(v, field, k.str(), {"input", "output", "cached_input"},
                      "USD per million tokens");
      }
    }
    if (!has_input) c.fail(&node, field + ".input", "missing (USD per million input tokens)");
    if (!has_output) c.fail(&node, field + ".output", "missing (USD per million output tokens)");
    if (!has_cached) price.cached_input = price.input;
    config.prices.set(name, price);
  }
}

void parse_llm(Checker& c, const toml::table& llm, LlmConfig& config) {
  for (const auto& [key, node] : llm) {
    std::string field = "llm." + std::string(key.str());
    if (key.str() == "timeout_s" || key.str() == "connect_timeout_s") {
      double v = c.number(node, field);
      if (!(v > 0)) c.fail(&node, field, "must be a positive number of seconds");
      (key.str() == "timeout_s" ? config.timeout_s : config.connect_timeout_s) = v;
    } else if (key.str() == "retries") {
      if (!node.is_integer() || node.as_integer()->get() < 0 || node.as_integer()->get() > 10)
        c.fail(&node, field, "must be a whole number from 0 to 10");
      else
        config.retries = static_cast<int>(node.as_integer()->get());
    } else if (key.str() == "cache") {
      if (!node.is_boolean())
        c.fail(&node, field, "must be true or false");
      else
        config.cache = node.as_boolean()->get();
    } else {
      c.unknown_key(node, "llm", key.str(), {"timeout_s", "connect_timeout_s", "retries", "cache"});
    }
  }
}

// Other tables belong to other layers, but one a letter or two from [models], [prices] or [llm]
// is a typo: ignored, it would leave its settings silently unused.
void check_tables(Checker& c, const toml::table& root) {
  const std::vector<std::string> known = {"models", "prices", "llm"};
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (auto near = core::closest_name(name, known))
      c.fail(&node, name,
             fmt::format("unknown table or key (kforge reads [models], [prices] and [llm]); did "
                         "you mean '{}'?",
                         *near));
  }
}

}  // namespace

Result<LlmConfig> parse_config(std::string_view text, const std::filesystem::path& source) {
  auto parsed = core::parse_toml(text, source);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  LlmConfig config;
  config.file = source;
  Checker c(source);
  check_tables(c, root);
  if (const auto* models = c.table(root, "models")) parse_models(c, *models, config);
  if (const auto* prices = c.table(root, "prices")) parse_prices(c, *prices, config);
  if (const auto* llm = c.table(root, "llm")) parse_llm(c, *llm, config);
  if (c.failed()) return c.error();
  return config;
}

Result<LlmConfig> load_config(const std::filesystem::path& path) {
  auto config = core::read_config_text(path);
  if (!config) return config.error();
  if (!*config) return LlmConfig{};
  return parse_config((*config)->text, (*config)->file);
}

}  // namespace kforge::llm
