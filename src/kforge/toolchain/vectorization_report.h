#pragma once
// The compiler's own account of which loops of a kernel it vectorized and why the others were
// not (GCC's -fopt-info-vec-optimized / -fopt-info-vec-missed), one remark per source line.
// Only loops the compiler was left to vectorize matter: a loop written with intrinsics (_mm*) is
// vectorized by hand, and GCC's "not vectorized" about it (dozens of lines for an intrinsics
// kernel) says nothing a reader can act on, so such remarks are marked and left out of the text.

#include <string>
#include <vector>

#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

struct VectorRemark {
  int line = 0;
  bool vectorized = false;
  std::string detail;  // "loop vectorized using 32 byte vectors", "not vectorized: complicated
                       // access pattern"
  std::string source_line;
  bool intrinsics = false;  // the loop (or statement) it is about uses intrinsics
};

// Parses GCC -fopt-info output for remarks about `file_name`, one per line (a vectorized remark
// wins over missed ones for the same line; the first reason is kept).
std::vector<VectorRemark> parse_vector_remarks(const std::string& output,
                                               const std::string& file_name,
                                               const std::string& source);

// The remarks on loops left to the compiler; those on intrinsics loops only counted.
std::string format_vector_remarks(const std::vector<VectorRemark>& remarks,
                                  std::size_t max_lines = 20);

// Whether the statement that starts on `line` (1-based; a loop with its whole body) uses
// intrinsics.
bool uses_intrinsics(const std::vector<std::string>& source_lines, int line);

}  // namespace kforge::toolchain
