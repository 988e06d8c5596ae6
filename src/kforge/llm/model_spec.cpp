// Parsing PROVIDER:MODEL.
#include "kforge/llm/model_spec.h"

#include <fmt/format.h>

#include "kforge/core/trim.h"

namespace kforge::llm {
namespace {

constexpr std::pair<Provider, std::string_view> kProviders[] = {
    {Provider::openai, "openai"},
    {Provider::openai_compatible, "openai-compatible"},
    {Provider::anthropic, "anthropic"},
    {Provider::gemini, "gemini"},
    {Provider::cmd, "cmd"},
    {Provider::replay, "replay"},
};

constexpr std::string_view kProviderList =
    "openai, openai-compatible, anthropic, gemini, cmd, replay";

std::string trim(std::string_view s) { return std::string(core::trim(s)); }

}  // namespace

std::string_view provider_name(Provider provider) {
  for (const auto& [p, name] : kProviders)
    if (p == provider) return name;
  return "?";
}

std::string ModelSpec::price_key() const {
  return fmt::format("{}:{}", provider_name(provider), model);
}

Result<ModelSpec> parse_model_spec(std::string_view text_in) {
  std::string text = trim(text_in);
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    return Error{fmt::format("'{}' is not PROVIDER:MODEL (providers: {}), e.g. openai:gpt-4o", text,
                             kProviderList)};
  std::string name = text.substr(0, colon);
  ModelSpec spec;
  spec.text = text;
  bool known = false;
  for (const auto& [p, n] : kProviders)
    if (n == name) {
      spec.provider = p;
      known = true;
    }
  if (!known)
    return Error{
        fmt::format("unknown provider '{}' in '{}' (providers: {})", name, text, kProviderList)};
  std::string rest = trim(std::string_view(text).substr(colon + 1));
  if (spec.provider == Provider::openai_compatible) {
    // The model name may itself hold '@' (rarely); the URL starts at the last "@http".
    auto at = rest.rfind("@http");
    if (at == std::string::npos || at == 0)
      return Error{
          fmt::format("'{}': openai-compatible needs MODEL@BASE_URL, e.g. "
                      "openai-compatible:qwen2.5-coder@http://localhost:8000/v1",
                      text)};
    spec.base_url = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  if (rest.empty()) {
    const char* what = spec.provider == Provider::cmd      ? "a command"
                       : spec.provider == Provider::replay ? "a transcript file"
                                                           : "a model name";
    return Error{fmt::format("'{}': {} needs {} after the colon", text, name, what)};
  }
  spec.model = rest;
  return spec;
}

}  // namespace kforge::llm
