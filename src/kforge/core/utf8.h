#pragma once
// Text from outside kforge (a kernel's output, a compiler's log, a model's reply, a source file)
// may be any bytes; JSON, the store and the transcripts need UTF-8. The boundaries repair it here.

#include <cstddef>
#include <string>
#include <string_view>

namespace kforge::core {

// `text` with every invalid sequence (a stray byte, an overlong form, a surrogate, a character
// cut short at the end) replaced by U+FFFD, one per maximal invalid subpart as Unicode advises.
// Valid UTF-8 comes back unchanged.
std::string valid_utf8(std::string_view text);

// The offset of the first byte that is not part of a valid UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view text);

}  // namespace kforge::core
