// The checks every request to the server passes before any handler sees it.
#include "kforge/web/request_guard.h"

#include <fmt/format.h>

#include <random>

namespace kforge::web {
namespace {

// "127.0.0.1:8080" → "127.0.0.1", "[::1]:80" → "[::1]".
std::string_view host_part(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    auto close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  auto colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

std::string_view port_part(std::string_view host) {
  auto close = host.rfind(']');
  auto colon = host.rfind(':');
  if (colon == std::string_view::npos || (close != std::string_view::npos && colon < close))
    return {};
  return host.substr(colon + 1);
}

bool changes_state(std::string_view method) { return method != "GET" && method != "HEAD"; }

}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) {
  // The time depends on the length of what was presented only, never on where it differs.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (b.empty() ? 0 : b[i % b.size()]));
  return diff == 0;
}

bool is_loopback_name(std::string_view host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]";
}

std::string random_token() {
  std::random_device rd;
  std::string t;
  for (int i = 0; i < 4; ++i) t += fmt::format("{:08x}", rd());
  return t;
}

bool is_safe_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  return true;
}

std::optional<Refusal> check_request(const GuardConfig& config, const RequestFacts& r) {
  if (!config.loopback) {
    if (r.token.empty() || !constant_time_equal(r.token, config.token))
      return Refusal{401, "a token is required: open the address kforge serve printed"};
  } else {
    // A page of another site that resolves its own name to 127.0.0.1 still says its name here.
    if (!is_loopback_name(host_part(r.host)) || port_part(r.host) != std::to_string(config.port))
      return Refusal{403, fmt::format("Host '{}' is not this server", r.host)};
  }
  if (!changes_state(r.method)) return std::nullopt;
  if (!r.origin.empty() && r.origin != "http://" + r.host)
    return Refusal{403, fmt::format("Origin '{}' may not change state here", r.origin)};
  if (r.content_type.rfind("application/json", 0) != 0)
    return Refusal{415, "state-changing requests are JSON (Content-Type: application/json)"};
  return std::nullopt;
}

}  // namespace kforge::web
