// Secret removal.
#include "kforge/llm/redact.h"

namespace kforge::llm {

std::string redact(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out(text);
  for (const auto& secret : secrets) {
    if (secret.size() < 4) continue;
    for (auto pos = out.find(secret); pos != std::string::npos; pos = out.find(secret, pos + 10))
      out.replace(pos, secret.size(), "[redacted]");
  }
  return out;
}

}  // namespace kforge::llm
