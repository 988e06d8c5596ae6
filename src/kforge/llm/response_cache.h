#pragma once
// The response cache ([llm] cache = true): a reply is stored under a hash of what determines
// it (the model spec with its provider, model and base URL or command; the messages; the
// temperature and max_tokens) and an identical request later is answered from the store, at
// no cost. The agent role is not part of the key: the same prompt gets the same answer.

#include <optional>
#include <string>
#include <string_view>

#include "kforge/core/result.h"
#include "kforge/llm/chat.h"
#include "kforge/store/database.h"

namespace kforge::llm {

std::string cache_key(const std::string& model_spec, const ChatRequest& request);

// Text, reasoning, finish reason, usage, provider and model survive the round trip.
std::string encode_cached_reply(const ChatReply& reply);
std::optional<ChatReply> decode_cached_reply(std::string_view encoded);

Result<std::optional<ChatReply>> find_cached(store::Database& db, const std::string& key);
Status put_cached(store::Database& db, const std::string& key, const ChatReply& reply);

}  // namespace kforge::llm
