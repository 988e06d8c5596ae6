// Shared helpers of the wire formats.
#include "kforge/llm/wire.h"

#include <fmt/format.h>

namespace kforge::llm {

std::string join_endpoint(std::string_view base, std::string_view version, std::string_view path) {
  std::string b(base);
  while (!b.empty() && b.back() == '/') b.pop_back();
  if (b.size() >= version.size() &&
      std::string_view(b).substr(b.size() - version.size()) == version)
    return b + std::string(path);
  return b + std::string(version) + std::string(path);
}

std::string excerpt(std::string_view body, std::size_t n) {
  std::string out;
  for (char c : body.substr(0, n)) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (body.size() > n) out += "…";
  return out;
}

std::string error_detail(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) return excerpt(body);
  if (j.is_array() && !j.empty()) j = j[0];  // Gemini streams errors as a one-element array
  if (j.is_object()) {
    if (auto e = j.find("error"); e != j.end()) {
      if (e->is_string()) return e->get<std::string>();
      if (e->is_object()) {
        std::string message = json_string(*e, "message");
        std::string type = json_string(*e, "type");
        if (type.empty()) type = json_string(*e, "status");
        if (!message.empty()) return type.empty() ? message : fmt::format("{}: {}", type, message);
      }
    }
    if (std::string m = json_string(j, "message"); !m.empty()) return m;
    if (std::string d = json_string(j, "detail"); !d.empty()) return d;
  }
  return excerpt(body);
}

LlmError malformed(std::string message) {
  return LlmError{ErrorKind::malformed, std::move(message)};
}

LlmResultOf<nlohmann::json> parse_json(std::string_view body, std::string_view what) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return malformed(fmt::format("malformed reply: empty body, expected {}", what));
    return malformed(fmt::format("malformed reply: not JSON, expected {} (it begins: {})", what,
                                 excerpt(body, 80)));
  }
  if (!j.is_object())
    return malformed(fmt::format("malformed reply: expected {} as a JSON object (it begins: {})",
                                 what, excerpt(body, 80)));
  return j;
}

std::string json_string(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t json_int(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

}  // namespace kforge::llm
