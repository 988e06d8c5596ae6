#pragma once
// The mismatch analysis for an incorrect kernel: how many elements are wrong, how wrong, where
// they cluster, and what the pattern suggests (never written, all zeros, a band of rows), in a
// form the debugger agent and a human can both act on.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kforge/core/task_resolve.h"

namespace kforge::eval {

struct OutputMismatch {
  std::string output;
  std::vector<std::int64_t> shape;
  std::int64_t numel = 0;
  std::int64_t bad = 0;
  std::int64_t never_written = 0;  // still NaN from the poison
  double max_abs = 0;
  double max_rel = 0;
  std::vector<std::int64_t> worst_index;
  double worst_actual = 0;
  double worst_expected = 0;
  std::vector<std::int64_t> first_bad_index;
  std::vector<std::int64_t> bad_lo, bad_hi;  // per-dimension extent of the wrong elements
  std::string pattern;                       // a sentence: what the errors look like
};

struct MismatchReport {
  int check_set = 0;  // which input set (1-based) first failed
  double rtol = 0, atol = 0;
  std::vector<OutputMismatch> outputs;  // only the outputs that are wrong
  std::string summary() const;          // multi-line text for humans and the debugger
};

std::vector<std::int64_t> unflatten(std::int64_t flat, const std::vector<std::int64_t>& shape);

// Compares one output; returns nullopt-equivalent (bad == 0) when it passes.
OutputMismatch analyze_output(const core::ResolvedTensor& t, const void* actual,
                              const void* expected, double rtol, double atol);

void to_json(nlohmann::json& j, const OutputMismatch& m);
void to_json(nlohmann::json& j, const MismatchReport& r);

}  // namespace kforge::eval
