#pragma once
// Which bytes of a kernel's outputs kforge keeps after a timed call. On an audited pair: every
// byte (output_snapshot.h). On the others: lines drawn at random from kforge's generator after the
// call returned, the same lines for the candidate and its partner. A kernel cannot know which pair
// is audited nor which lines are drawn, so stale or unfinished outputs are caught by the sample
// (all of a cached answer is wrong) or by the next audit (a small stale share); the last timed
// pair is always compared in full. It keeps the per-pair work of the judge off the timing: at the
// cpu size of a memory-bound task, the full copies and compares of every pair cost ten times the
// two calls.

#include <cstddef>
#include <random>
#include <vector>

#include "kforge/eval/output_snapshot.h"

namespace kforge::eval {

constexpr std::size_t kSampleLineBytes = 64;  // one cache line: a write anywhere in it shows

struct OutputSample {
  bool full = true;                             // every byte (an audit)
  std::vector<std::vector<std::size_t>> lines;  // else, per output, the drawn lines' offsets
};

// `lines` lines of each output of `bytes[i]` bytes (an output of no more lines is taken whole, in a
// shuffled order).
OutputSample draw_sample(const std::vector<std::size_t>& bytes, std::size_t lines,
                         std::mt19937_64& rng);

// Copies the sampled bytes of `outputs` into `into[i]`, the lines one after another.
void take_sample(const std::vector<const unsigned char*>& outputs,
                 const std::vector<std::size_t>& bytes, const OutputSample& sample,
                 std::mt19937_64& rng, OutputSnapshot& into);
bool sample_unchanged(const std::vector<const unsigned char*>& outputs,
                      const std::vector<std::size_t>& bytes, const OutputSample& sample,
                      const OutputSnapshot& taken);

// True one pair in `every`, drawn from kforge's generator after the candidate's call returned.
bool draw_audit(std::mt19937_64& rng, int every);

}  // namespace kforge::eval
