#pragma once
// Who may talk to `kforge serve`. Bound to loopback, a request must name the server by a loopback
// Host (no DNS rebinding) and a state-changing one must come from the server's own origin as JSON
// (a page of another origin can neither send it without a CORS preflight nor read the answer).
// Bound anywhere else, every request must also carry the token printed at start (header, cookie
// or query), compared in constant time.

#include <optional>
#include <string>
#include <string_view>

namespace kforge::web {

struct GuardConfig {
  bool loopback = true;  // bound to 127.0.0.1, ::1 or localhost
  int port = 0;
  std::string token;  // "" when loopback
};

struct RequestFacts {
  std::string method, host, origin, content_type;
  std::string token;  // as presented by the request ("" = none)
};

struct Refusal {
  int status;  // 401, 403 or 415
  std::string reason;
};

std::optional<Refusal> check_request(const GuardConfig& config, const RequestFacts& request);

bool constant_time_equal(std::string_view a, std::string_view b);
bool is_loopback_name(std::string_view host);  // "127.0.0.1", "localhost", "::1", "[::1]"
// A fresh token: 32 hex digits from the system's random source.
std::string random_token();
// A run or session id as kforge makes them (letters, digits, '-', '_'): nothing that could name
// another folder.
bool is_safe_id(std::string_view id);

}  // namespace kforge::web
