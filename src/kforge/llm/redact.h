#pragma once
// Secrets never leave the process in text: every message, record and log line that could echo
// an API key (a provider's error body, a proxy's complaint) passes through redact() first.

#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm {

// Replaces each occurrence of each secret (of 4 characters or more) with "[redacted]".
std::string redact(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace kforge::llm
