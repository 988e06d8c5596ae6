// Cache keys and the cached reply's encoding.
#include "kforge/llm/response_cache.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kforge/core/hash.h"
#include "kforge/llm/transcript.h"
#include "kforge/store/llm_cache.h"

namespace kforge::llm {

using nlohmann::json;

std::string cache_key(const std::string& model_spec, const ChatRequest& request) {
  core::Hasher h;
  h.add("kforge-llm-cache-v1")
      .add(model_spec)
      .add(static_cast<std::uint64_t>(request.messages.size()));
  for (const auto& m : request.messages) h.add(m.role).add(m.content);
  h.add(fmt::format("{:.17g}", request.temperature))
      .add(static_cast<std::uint64_t>(request.max_tokens));
  return h.hex();
}

std::string encode_cached_reply(const ChatReply& r) {
  return reply_to_json(r).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<ChatReply> decode_cached_reply(std::string_view encoded) {
  auto j = json::parse(encoded, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    ChatReply r;
    reply_from_json(j, r);
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

Result<std::optional<ChatReply>> find_cached(store::Database& db, const std::string& key) {
  auto hit = store::find_cached_reply(db, key);
  if (!hit) return hit.error();
  if (!*hit) return std::optional<ChatReply>();
  return decode_cached_reply(**hit);  // an undecodable entry is a miss
}

Status put_cached(store::Database& db, const std::string& key, const ChatReply& reply) {
  return store::put_cached_reply(db, key, utc_timestamp(), encode_cached_reply(reply));
}

}  // namespace kforge::llm
