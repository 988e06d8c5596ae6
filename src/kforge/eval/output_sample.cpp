// Random lines of the outputs, copied and compared in the order they were drawn.
#include "kforge/eval/output_sample.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace kforge::eval {
namespace {

std::size_t line_bytes(std::size_t at, std::size_t total) {
  return std::min(kSampleLineBytes, total - at);
}

std::vector<std::size_t> draw_lines(std::size_t bytes, std::size_t want, std::mt19937_64& rng) {
  const std::size_t lines = (bytes + kSampleLineBytes - 1) / kSampleLineBytes;
  std::vector<std::size_t> at;
  if (lines <= want) {
    at.resize(lines);
    std::iota(at.begin(), at.end(), std::size_t{0});
    std::shuffle(at.begin(), at.end(), rng);
  } else {
    std::uniform_int_distribution<std::size_t> line(0, lines - 1);
    at.resize(want);
    for (auto& a : at) a = line(rng);
  }
  for (auto& a : at) a *= kSampleLineBytes;
  return at;
}

}  // namespace

OutputSample draw_sample(const std::vector<std::size_t>& bytes, std::size_t lines,
                         std::mt19937_64& rng) {
  OutputSample s;
  s.full = false;
  for (std::size_t b : bytes) s.lines.push_back(draw_lines(b, lines, rng));
  return s;
}

void take_sample(const std::vector<const unsigned char*>& outputs,
                 const std::vector<std::size_t>& bytes, const OutputSample& sample,
                 std::mt19937_64& rng, OutputSnapshot& into) {
  if (sample.full) return take_snapshot(outputs, bytes, rng, into);
  into.resize(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    into[i].clear();
    for (std::size_t at : sample.lines[i])
      into[i].insert(into[i].end(), outputs[i] + at, outputs[i] + at + line_bytes(at, bytes[i]));
  }
}

bool sample_unchanged(const std::vector<const unsigned char*>& outputs,
                      const std::vector<std::size_t>& bytes, const OutputSample& sample,
                      const OutputSnapshot& taken) {
  if (sample.full) return unchanged_since(outputs, taken);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const unsigned char* copy = taken[i].data();
    for (std::size_t at : sample.lines[i]) {
      const std::size_t n = line_bytes(at, bytes[i]);
      if (std::memcmp(outputs[i] + at, copy, n) != 0) return false;
      copy += n;
    }
  }
  return true;
}

bool draw_audit(std::mt19937_64& rng, int every) {
  return every <= 1 || std::uniform_int_distribution<int>(0, every - 1)(rng) == 0;
}

}  // namespace kforge::eval
