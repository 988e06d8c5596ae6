// The comparison loop: doubles throughout so f32 and f64 share the rule.
#include "kforge/core/compare.h"

#include <cmath>

namespace kforge::core {
namespace {

template <typename T>
double at(const void* p, std::int64_t i) {
  return static_cast<double>(static_cast<const T*>(p)[i]);
}

double value(DType t, const void* p, std::int64_t i) {
  switch (t) {
    case DType::f32:
      return at<float>(p, i);
    case DType::f64:
      return at<double>(p, i);
    case DType::i32:
      return at<std::int32_t>(p, i);
    case DType::i64:
      return at<std::int64_t>(p, i);
  }
  return 0;
}

// True when the pair passes; `err` gets |a - e| for finite pairs.
inline bool element_ok(double a, double e, double rtol, double atol, double& err) {
  if (!std::isfinite(e) || !std::isfinite(a)) {
    err = 0;
    if (std::isnan(e)) return std::isnan(a);
    return a == e;  // same infinity
  }
  err = std::fabs(a - e);
  return err <= atol + rtol * std::fabs(e);
}

template <typename T>
void compare_typed(const T* a, const T* e, std::int64_t n, double rtol, double atol,
                   CompareSummary& s) {
  for (std::int64_t i = 0; i < n; ++i) {
    double av = static_cast<double>(a[i]), ev = static_cast<double>(e[i]);
    double err;
    bool ok = element_ok(av, ev, rtol, atol, err);
    if (std::isfinite(av) && std::isfinite(ev)) {
      double rel = err / std::max(std::fabs(ev), 1e-30);
      if (err > s.max_abs) {
        s.max_abs = err;
        s.worst = i;
        s.worst_actual = av;
        s.worst_expected = ev;
      }
      if (!ok && rel > s.max_rel) s.max_rel = rel;
    }
    if (!ok) {
      ++s.bad;
      if (std::isnan(av) && !std::isnan(ev)) ++s.nan_actual;
      if (s.first_bad < 0) s.first_bad = i;
      s.last_bad = i;
      if (s.worst < 0) {
        s.worst = i;
        s.worst_actual = av;
        s.worst_expected = ev;
      }
    }
  }
}

// The common case is "everything passes": a vectorized, parallel count decides it. NaN and
// infinities fail this test even where they match, so any failure falls back to the exact pass.
template <typename T>
std::int64_t quick_failures(const T* a, const T* e, std::int64_t n, double rtol, double atol) {
  const T r = static_cast<T>(rtol), t = static_cast<T>(atol);
  std::int64_t bad = 0;
#pragma omp parallel for simd reduction(+ : bad) schedule(static) if (n > (1 << 16))
  for (std::int64_t i = 0; i < n; ++i) {
    T diff = a[i] > e[i] ? a[i] - e[i] : e[i] - a[i];
    T mag = e[i] < 0 ? -e[i] : e[i];
    bad += !(diff <= t + r * mag);
  }
  return bad;
}

}  // namespace

CompareSummary compare_buffers(DType dtype, const void* actual, const void* expected,
                               std::int64_t numel, double rtol, double atol) {
  CompareSummary s;
  s.numel = numel;
  if (dtype == DType::f32 &&
      quick_failures(static_cast<const float*>(actual), static_cast<const float*>(expected), numel,
                     rtol, atol) == 0)
    return s;
  if (dtype == DType::f64 &&
      quick_failures(static_cast<const double*>(actual), static_cast<const double*>(expected),
                     numel, rtol, atol) == 0)
    return s;
  switch (dtype) {
    case DType::f32:
      compare_typed(static_cast<const float*>(actual), static_cast<const float*>(expected), numel,
                    rtol, atol, s);
      break;
    case DType::f64:
      compare_typed(static_cast<const double*>(actual), static_cast<const double*>(expected), numel,
                    rtol, atol, s);
      break;
    case DType::i32:
      compare_typed(static_cast<const std::int32_t*>(actual),
                    static_cast<const std::int32_t*>(expected), numel, 0, 0, s);
      break;
    case DType::i64:
      compare_typed(static_cast<const std::int64_t*>(actual),
                    static_cast<const std::int64_t*>(expected), numel, 0, 0, s);
      break;
  }
  return s;
}

BadExtent bad_extent(DType dtype, const void* actual, const void* expected,
                     const std::vector<std::int64_t>& shape, double rtol, double atol) {
  BadExtent x;
  const std::size_t d = shape.size();
  x.lo.assign(d, -1);
  x.hi.assign(d, -1);
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  bool integer = !dtype_is_float(dtype);
  std::vector<std::int64_t> idx(d, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    double err;
    if (!element_ok(value(dtype, actual, i), value(dtype, expected, i), integer ? 0 : rtol,
                    integer ? 0 : atol, err)) {
      std::int64_t rem = i;
      for (std::size_t k = d; k-- > 0;) {
        idx[k] = rem % shape[k];
        rem /= shape[k];
      }
      for (std::size_t k = 0; k < d; ++k) {
        if (x.lo[k] < 0 || idx[k] < x.lo[k]) x.lo[k] = idx[k];
        if (idx[k] > x.hi[k]) x.hi[k] = idx[k];
      }
    }
  }
  return x;
}

}  // namespace kforge::core
