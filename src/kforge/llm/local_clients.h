#pragma once
// The providers that are not HTTP APIs: cmd:COMMAND (a program) and replay:FILE (a recorded
// transcript).

#include <memory>

#include "kforge/llm/model_client.h"

namespace kforge::llm {

std::unique_ptr<ModelClient> make_cmd_client(const ModelSpec& spec, const ClientOptions& options);
// config when the transcript cannot be read.
LlmResultOf<std::unique_ptr<ModelClient>> make_replay_client(const ModelSpec& spec,
                                                             const ClientOptions& options);

}  // namespace kforge::llm
