#pragma once
// Shortening text for a reader (a model's prompt, a table cell) without cutting a word, a
// sentence or a UTF-8 character in half: a summary that stops mid-word ("the profiler sugg")
// loses exactly the conclusion the reader needed.

#include <cstddef>
#include <string>
#include <string_view>

namespace kforge::core {

// `text` when it fits in `max_bytes`. Otherwise its longest prefix that ends at a paragraph break
// (when that keeps at least half), else at a sentence end (". ", "? ", "! ", or a line end after
// one; when that keeps at least a third), else at a space or line break, followed by `marker` (so
// at most max_bytes of the text, plus the marker): " […]" in a prompt, "…" in a table cell or a
// line on a terminal.
std::string shorten(std::string_view text, std::size_t max_bytes, std::string_view marker = " […]");

}  // namespace kforge::core
