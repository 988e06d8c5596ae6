#pragma once
// Token counts for providers that report none (a cmd: program, some openai-compatible servers),
// so that --max-tokens budgets, usage tables and costs mean something for them. The counts are
// estimates and every record that holds one says so (Usage::estimated).

#include <cstdint>
#include <string_view>

#include "kforge/llm/chat.h"

namespace kforge::llm {

// A tokenizer-free estimate of what a BPE tokenizer (GPT, Claude, Gemini) makes of `text`:
//   a run of letters        → one token per 4 letters, at least one (common words are one token,
//                             long identifiers split);
//   a run of digits         → one token per 3 digits (BPE vocabularies group up to three);
//   a punctuation character → one token (code is dense in them: `();`, `[i]`, `->`);
//   a newline               → one token; other whitespace joins the next word (free);
//   a non-ASCII character   → one token.
// On English prose this lands near the providers' rule of thumb (4 characters per token); on
// code it is higher than bytes/4, as real tokenizers are. It is meant to err high rather than
// low (long words and each punctuation mark count fully), so a budget stops early, not late.
std::int64_t estimate_tokens(std::string_view text);

// The usage a call would have reported: the request's messages (plus 4 tokens of framing per
// message) in, the reply's text and reasoning out; marked estimated.
Usage estimate_usage(const ChatRequest& request, const ChatReply& reply);

// True when a provider reported nothing at all for a reply that has text.
bool reports_no_usage(const ChatReply& reply);

}  // namespace kforge::llm
