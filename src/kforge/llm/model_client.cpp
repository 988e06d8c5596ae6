// make_client: the provider for a spec, with its key and base URL from the environment.
#include "kforge/llm/model_client.h"

#include <fmt/format.h>

#include <cstdlib>

#include "kforge/llm/http_client.h"
#include "kforge/llm/local_clients.h"
#include "kforge/llm/wire.h"

namespace kforge::llm {
namespace {

struct EnvValue {
  std::string value, name;
};

// The first of `names` that is set and non-empty.
EnvValue first_set(const ClientOptions& o, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    std::optional<std::string> v;
    if (o.getenv)
      v = o.getenv(n);
    else if (const char* e = std::getenv(n))
      v = std::string(e);
    if (v && !v->empty()) return {*v, n};
  }
  return {};
}

LlmError missing_key(const std::string& spec, const char* variables) {
  return LlmError{ErrorKind::config, fmt::format("{}: no API key: set {}", spec, variables)};
}

}  // namespace

LlmResultOf<std::unique_ptr<ModelClient>> make_client(const ModelSpec& spec,
                                                      const ClientOptions& options) {
  WireInfo w;
  w.provider = std::string(provider_name(spec.provider));
  w.model = spec.model;
  switch (spec.provider) {
    case Provider::cmd:
      return make_cmd_client(spec, options);
    case Provider::replay:
      return make_replay_client(spec, options);
    case Provider::openai: {
      auto key = first_set(options, {"OPENAI_API_KEY"});
      if (key.value.empty())
        return missing_key(
            spec.text,
            "OPENAI_API_KEY (or use openai-compatible:MODEL@URL for a server that needs no key)");
      auto base = first_set(options, {"OPENAI_BASE_URL"});
      w.base_url = base.value.empty() ? "https://api.openai.com/v1" : base.value;
      w.base_env = "OPENAI_BASE_URL";
      w.key = key.value;
      w.key_env = key.name;
      return make_http_client(spec.text, make_openai_wire(std::move(w), false), options);
    }
    case Provider::openai_compatible: {
      auto key = first_set(options, {"KFORGE_OPENAI_COMPATIBLE_KEY", "OPENAI_API_KEY"});
      w.base_url = spec.base_url;
      w.key = key.value;
      w.key_env = key.value.empty() ? "KFORGE_OPENAI_COMPATIBLE_KEY" : key.name;
      return make_http_client(spec.text, make_openai_wire(std::move(w), true), options);
    }
    case Provider::anthropic: {
      auto key = first_set(options, {"ANTHROPIC_API_KEY"});
      if (key.value.empty()) return missing_key(spec.text, "ANTHROPIC_API_KEY");
      auto base = first_set(options, {"ANTHROPIC_BASE_URL"});
      w.base_url = base.value.empty() ? "https://api.anthropic.com" : base.value;
      w.base_env = "ANTHROPIC_BASE_URL";
      w.key = key.value;
      w.key_env = key.name;
      return make_http_client(spec.text, make_anthropic_wire(std::move(w)), options);
    }
    case Provider::gemini: {
      auto key = first_set(options, {"GEMINI_API_KEY", "GOOGLE_API_KEY"});
      if (key.value.empty()) return missing_key(spec.text, "GEMINI_API_KEY (or GOOGLE_API_KEY)");
      auto base = first_set(options, {"GEMINI_BASE_URL"});
      w.base_url = base.value.empty() ? "https://generativelanguage.googleapis.com" : base.value;
      w.base_env = "GEMINI_BASE_URL";
      w.key = key.value;
      w.key_env = key.name;
      return make_http_client(spec.text, make_gemini_wire(std::move(w)), options);
    }
  }
  return LlmError{ErrorKind::config, fmt::format("{}: unknown provider", spec.text)};
}

}  // namespace kforge::llm
