#pragma once
// What a result records about the kforge that produced it: the version and the commit of the
// source tree it was built from ("<sha>-dirty" with uncommitted changes, "unknown" outside git).

#include <string_view>

namespace kforge::core {

std::string_view git_sha();  // defined in a file generated at build time
inline constexpr std::string_view version() { return KFORGE_VERSION; }

}  // namespace kforge::core
