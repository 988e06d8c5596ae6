// Counting runs of character classes; see token_estimate.h for the rule and why.
#include "kforge/llm/token_estimate.h"

namespace kforge::llm {
namespace {

enum class Kind { letter, digit, space, newline, punct, other };

Kind kind_of(unsigned char c) {
  if (c >= 0x80) return Kind::other;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return Kind::letter;
  if (c >= '0' && c <= '9') return Kind::digit;
  if (c == '\n') return Kind::newline;
  if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') return Kind::space;
  return Kind::punct;
}

std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return (n + d - 1) / d; }

constexpr std::int64_t kFramingPerMessage = 4;  // role markers and separators of the chat format

}  // namespace

std::int64_t estimate_tokens(std::string_view text) {
  std::int64_t tokens = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    Kind k = kind_of(c);
    if (k == Kind::letter || k == Kind::digit) {
      std::size_t j = i;
      while (j < text.size() && kind_of(static_cast<unsigned char>(text[j])) == k) ++j;
      tokens += ceil_div(static_cast<std::int64_t>(j - i), k == Kind::letter ? 4 : 3);
      i = j;
      continue;
    }
    if (k == Kind::other) {
      // One token per UTF-8 code point: skip its continuation bytes.
      ++tokens;
      ++i;
      while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
      continue;
    }
    if (k == Kind::punct || k == Kind::newline) ++tokens;
    ++i;
  }
  return tokens;
}

Usage estimate_usage(const ChatRequest& request, const ChatReply& reply) {
  Usage u;
  for (const auto& m : request.messages)
    u.input_tokens += kFramingPerMessage + estimate_tokens(m.content);
  u.reasoning_tokens = estimate_tokens(reply.reasoning);
  u.output_tokens = estimate_tokens(reply.text) + u.reasoning_tokens;
  u.estimated = true;
  return u;
}

bool reports_no_usage(const ChatReply& reply) {
  const Usage& u = reply.usage;
  return u.input_tokens == 0 && u.output_tokens == 0 &&
         (!reply.text.empty() || !reply.reasoning.empty());
}

}  // namespace kforge::llm
