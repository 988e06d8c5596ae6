#pragma once
// PROVIDER:MODEL, as written after --model, in KFORGE_MODEL and in kforge.toml's [models]:
//   openai:gpt-4o   anthropic:claude-sonnet-4-5   gemini:gemini-2.5-pro
//   openai-compatible:qwen2.5-coder@http://localhost:8000/v1   cmd:./my-model.sh   replay:run.jsonl

#include <string>
#include <string_view>

#include "kforge/core/result.h"

namespace kforge::llm {

enum class Provider { openai, openai_compatible, anthropic, gemini, cmd, replay };

std::string_view provider_name(Provider provider);

struct ModelSpec {
  Provider provider = Provider::openai;
  std::string model;     // the model's name; for cmd: the command line; for replay: the file
  std::string base_url;  // openai-compatible: the server after '@'
  std::string text;      // the spec as written

  // "provider:model" without any @URL: the key into the price table and the usage tables.
  std::string price_key() const;
};

Result<ModelSpec> parse_model_spec(std::string_view text);

}  // namespace kforge::llm
