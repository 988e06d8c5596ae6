#pragma once
// The compiler's own account of which loops of a kernel it vectorized and why the others were
// not (GCC's -fopt-info-vec-optimized / -fopt-info-vec-missed), one remark per source line.

#include <string>
#include <vector>

#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

struct VectorRemark {
  int line = 0;
  bool vectorized = false;
  std::string detail;       // "loop vectorized using 32 byte vectors", "not vectorized: complicated access pattern"
  std::string source_line;
};

// Parses GCC -fopt-info output for remarks about `file_name`, one per line (a vectorized remark
// wins over missed ones for the same line; the first reason is kept).
std::vector<VectorRemark> parse_vector_remarks(const std::string& output, const std::string& file_name, const std::string& source);

std::string format_vector_remarks(const std::vector<VectorRemark>& remarks, std::size_t max_lines = 20);

}  // namespace kforge::toolchain
