#pragma once
// The ModelClient of every HTTP provider: builds the request with the provider's Wire, sends it
// through the transport, retries what a retry can fix, and turns statuses and transport
// failures into errors that say what to do. Every message passes through redact().

#include <memory>

#include "kforge/llm/model_client.h"
#include "kforge/llm/wire.h"

namespace kforge::llm {

std::unique_ptr<ModelClient> make_http_client(std::string name, std::unique_ptr<Wire> wire,
                                              const ClientOptions& options);

}  // namespace kforge::llm
