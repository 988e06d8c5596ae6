// Triangle multiplicative update (outgoing) reference, in double throughout: the gated left and
// right projections of the masked pair activations, their contraction over the shared residue k,
// the RMS normalisation over channels, and the gated output projection. Outer loops in parallel;
// each element's sum is serial, so the result does not depend on the thread count.
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// out[c] = Σ_c' x[c']·w[c'][c] for one pair (i, j); w is C×C, row-major.
template <typename T>
void project(const T* x, const float* w, double* out) {
  using task::C;
  for (std::int64_t c = 0; c < C; ++c) out[c] = 0;
  for (std::int64_t cp = 0; cp < C; ++cp) {
    const double xc = x[cp];
    for (std::int64_t c = 0; c < C; ++c) out[c] += xc * w[cp * C + c];
  }
}

}  // namespace

// not a guard: the pair mask is declared here, and applied (and counted) below
extern "C" void kernel(const float* pair_act, const float* mask, const float* left_proj_w, const float* right_proj_w,
                       const float* left_gate_w, const float* right_gate_w, const float* center_scale,
                       const float* out_proj_w, const float* out_gate_w, float* output) {
  using namespace task;
  // left[c][i][k] and right[c][j][k]: channel-major, so the contraction over k is contiguous.
  std::vector<double> left(C * N * N), right(C * N * N);
#pragma omp parallel for schedule(static)
  for (std::int64_t ik = 0; ik < N * N; ++ik) {
    std::vector<double> act(C), lp(C), rp(C), lg(C), rg(C);
    const double m = KFORGE_GUARD("pair_mask", mask[ik] != 1.0f) ? mask[ik] : 1.0;  // × mask
    for (std::int64_t c = 0; c < C; ++c) act[c] = static_cast<double>(pair_act[ik * C + c]) * m;
    project(act.data(), left_proj_w, lp.data());
    project(act.data(), right_proj_w, rp.data());
    project(act.data(), left_gate_w, lg.data());
    project(act.data(), right_gate_w, rg.data());
    for (std::int64_t c = 0; c < C; ++c) {
      left[c * N * N + ik] = lp[c] * sigmoid(lg[c]);
      right[c * N * N + ik] = rp[c] * sigmoid(rg[c]);
    }
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t ij = 0; ij < N * N; ++ij) {
    const std::int64_t i = ij / N, j = ij % N;
    std::vector<double> result(C), out(C), gate(C);
    double sum_sq = 0;
    for (std::int64_t c = 0; c < C; ++c) {
      const double* l = left.data() + (c * N + i) * N;
      const double* r = right.data() + (c * N + j) * N;
      double acc = 0;
      for (std::int64_t k = 0; k < N; ++k) acc += l[k] * r[k];
      result[c] = acc;
      sum_sq += acc * acc;
    }
    const double rms = std::sqrt(sum_sq / C + f64::eps);
    for (std::int64_t c = 0; c < C; ++c) result[c] = result[c] / rms * center_scale[c];
    project(result.data(), out_proj_w, out.data());
    project(pair_act + ij * C, out_gate_w, gate.data());
    for (std::int64_t c = 0; c < C; ++c) output[ij * C + c] = static_cast<float>(out[c] * sigmoid(gate[c]));
  }
}
