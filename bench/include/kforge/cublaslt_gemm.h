#pragma once
// A row-major FP32 GEMM with a fused epilogue through cuBLASLt, for the cuda experts (trusted
// code: candidates cannot link cuBLASLt). y[M×N] = epilogue(alpha · x[M×K] · w[K×N], bias[N]).
// Row-major y = x·w is column-major yᵀ = wᵀ·xᵀ: cuBLASLt is given w as A and x as B, without
// transposition, and the bias runs along the rows of the column-major result (length N).
// The handle and a 32 MiB workspace are made once per process; the heuristic's choice is made
// once (an expert's shapes are compile-time constants).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace kforge::cuda {

inline void lt_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "cuBLASLt: %s failed (%d)\n", what, s);
}

inline void lt_gemm_epilogue(const float* x, const float* w, const float* bias, float* y,
                             std::int64_t M, std::int64_t N, std::int64_t K, float alpha,
                             cublasLtEpilogue_t epilogue, cudaStream_t stream) {
  constexpr std::size_t kWorkspace = 32u << 20;
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    lt_check(cublasLtCreate(&h), "cublasLtCreate");
    return h;
  }();
  static void* workspace = [] {
    void* p = nullptr;
    cudaMalloc(&p, kWorkspace);
    return p;
  }();
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
    bool ready = false;
  };
  static Plan plan;
  if (!plan.op) {
    lt_check(cublasLtMatmulDescCreate(&plan.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    cublasOperation_t no = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no);
    cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no);
    cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                   sizeof epilogue);
    // Column-major: A = w as N×K (ld N), B = x as K×M (ld K), C = y as N×M (ld N).
    cublasLtMatrixLayoutCreate(&plan.a, CUDA_R_32F, static_cast<std::uint64_t>(N),
                               static_cast<std::uint64_t>(K), N);
    cublasLtMatrixLayoutCreate(&plan.b, CUDA_R_32F, static_cast<std::uint64_t>(K),
                               static_cast<std::uint64_t>(M), K);
    cublasLtMatrixLayoutCreate(&plan.c, CUDA_R_32F, static_cast<std::uint64_t>(N),
                               static_cast<std::uint64_t>(M), N);
    cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulPreferenceCreate(&pref);
    std::size_t ws = kWorkspace;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                         sizeof ws);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    lt_check(cublasLtMatmulAlgoGetHeuristic(handle, plan.op, plan.a, plan.b, plan.c, plan.c, pref,
                                            1, &result, &found),
             "heuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    plan.algo = result.algo;
    plan.ready = found > 0;
  }
  // The bias pointer may change between calls (a scaled copy, or the input itself).
  cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  const float beta = 0.0f;
  lt_check(cublasLtMatmul(handle, plan.op, &alpha, w, plan.a, x, plan.b, &beta, y, plan.c, y,
                          plan.c, plan.ready ? &plan.algo : nullptr, workspace, kWorkspace, stream),
           "matmul");
}

}  // namespace kforge::cuda
