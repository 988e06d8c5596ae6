// expect: link_refused
// reason: cblas_sscal
// Calls OpenBLAS behind the harness's back. Caught by the link check: the symbol is not in the
// C/C++ runtime, and the library is not allowed.
extern "C" void cblas_sscal(int n, float alpha, float* x, int incx);
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  cblas_sscal(int(task::y_numel), 1.0f, y, 1);
}
