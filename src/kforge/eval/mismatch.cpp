// Builds the mismatch report from core::compare_buffers and core::bad_extent.
#include "kforge/eval/mismatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "kforge/core/compare.h"

namespace kforge::eval {
namespace {

std::string index_text(const std::vector<std::int64_t>& idx) {
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

bool all_zero(core::DType t, const void* p, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    double v = t == core::DType::f32   ? static_cast<const float*>(p)[i]
               : t == core::DType::f64 ? static_cast<const double*>(p)[i]
               : t == core::DType::i32
                   ? static_cast<double>(static_cast<const std::int32_t*>(p)[i])
                   : static_cast<double>(static_cast<const std::int64_t*>(p)[i]);
    if (v != 0) return false;
  }
  return true;
}

std::string describe_pattern(const OutputMismatch& m, bool zeros) {
  if (m.never_written == m.numel)
    return "the output was never written (every element still holds the NaN poison)";
  if (zeros) return "the output is all zeros";
  std::string s;
  if (m.never_written > 0)
    s = fmt::format("{} elements were never written (still NaN), the first at {}; ",
                    m.never_written, index_text(m.first_bad_index));
  // Where the errors sit: a dimension whose bad range is narrower than the tensor says "band".
  std::vector<std::string> bands;
  for (std::size_t d = 0; d < m.shape.size(); ++d)
    if (m.bad_lo[d] > 0 || m.bad_hi[d] < m.shape[d] - 1)
      bands.push_back(
          fmt::format("dim {} only {}..{} of {}", d, m.bad_lo[d], m.bad_hi[d], m.shape[d]));
  if (bands.empty())
    s += "errors spread over the whole tensor";
  else
    s += fmt::format("errors confined to {}", fmt::join(bands, ", "));
  if (m.bad * 1000 < m.numel) s += " (a few isolated elements: an edge case or a remainder loop?)";
  return s;
}

}  // namespace

std::vector<std::int64_t> unflatten(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

OutputMismatch analyze_output(const core::ResolvedTensor& t, const void* actual,
                              const void* expected, double rtol, double atol) {
  auto c = core::compare_buffers(t.dtype, actual, expected, t.numel, rtol, atol);
  OutputMismatch m;
  m.output = t.name;
  m.shape = t.shape;
  m.numel = t.numel;
  m.bad = c.bad;
  if (c.ok()) return m;
  m.never_written = c.nan_actual;
  m.max_abs = c.max_abs;
  m.max_rel = c.max_rel;
  m.worst_index = unflatten(std::max<std::int64_t>(c.worst, 0), t.shape);
  m.worst_actual = c.worst_actual;
  m.worst_expected = c.worst_expected;
  m.first_bad_index = unflatten(c.first_bad, t.shape);
  auto extent = core::bad_extent(t.dtype, actual, expected, t.shape, rtol, atol);
  m.bad_lo = extent.lo;
  m.bad_hi = extent.hi;
  m.pattern = describe_pattern(m, all_zero(t.dtype, actual, t.numel));
  return m;
}

std::string MismatchReport::summary() const {
  std::string s;
  for (const auto& m : outputs) {
    s += fmt::format("output '{}' {}: {} of {} elements wrong ({:.3g}%) on check input set {}\n",
                     m.output, index_text(m.shape), m.bad, m.numel,
                     100.0 * static_cast<double>(m.bad) /
                         static_cast<double>(std::max<std::int64_t>(m.numel, 1)),
                     check_set);
    s += fmt::format(
        "  worst at {}: got {:.7g}, expected {:.7g} (abs error {:.3g}); max rel error {:.3g}\n",
        index_text(m.worst_index), m.worst_actual, m.worst_expected, m.max_abs, m.max_rel);
    s += fmt::format("  first wrong element at {}\n", index_text(m.first_bad_index));
    s += "  " + m.pattern + "\n";
  }
  s += fmt::format("  tolerance: |got − expected| ≤ {:g} + {:g}·|expected|\n", atol, rtol);
  return s;
}

void to_json(nlohmann::json& j, const OutputMismatch& m) {
  j = {{"output", m.output},
       {"shape", m.shape},
       {"numel", m.numel},
       {"bad", m.bad},
       {"never_written", m.never_written},
       {"max_abs", m.max_abs},
       {"max_rel", m.max_rel},
       {"worst_index", m.worst_index},
       {"worst_actual", m.worst_actual},
       {"worst_expected", m.worst_expected},
       {"first_bad_index", m.first_bad_index},
       {"bad_lo", m.bad_lo},
       {"bad_hi", m.bad_hi},
       {"pattern", m.pattern}};
}

void to_json(nlohmann::json& j, const MismatchReport& r) {
  j = {{"check_set", r.check_set},
       {"rtol", r.rtol},
       {"atol", r.atol},
       {"outputs", r.outputs},
       {"summary", r.summary()}};
}

}  // namespace kforge::eval
