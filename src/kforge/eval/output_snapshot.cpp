// Chunked copies in a shuffled order; serial on purpose: kforge's own OpenMP workers would spin
// on the cores the next timed call needs.
#include "kforge/eval/output_snapshot.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace kforge::eval {
namespace {

constexpr std::size_t kChunk = 64 << 10;

template <typename T>
void fill(unsigned char* p, std::int64_t n, T value) {
  T* d = reinterpret_cast<T*>(p);
#pragma omp simd
  for (std::int64_t k = 0; k < n; ++k) d[k] = value;
}

}  // namespace

void take_snapshot(const std::vector<const unsigned char*>& outputs,
                   const std::vector<std::size_t>& bytes, std::mt19937_64& rng,
                   OutputSnapshot& into) {
  into.resize(outputs.size());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    into[i].resize(bytes[i]);
    const std::size_t chunks = (bytes[i] + kChunk - 1) / kChunk;
    order.resize(chunks);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t c : order) {
      const std::size_t at = c * kChunk;
      std::memcpy(into[i].data() + at, outputs[i] + at, std::min(kChunk, bytes[i] - at));
    }
  }
}

bool unchanged_since(const std::vector<const unsigned char*>& outputs,
                     const OutputSnapshot& snapshot) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (std::memcmp(outputs[i], snapshot[i].data(), snapshot[i].size()) != 0) return false;
  return true;
}

void poison_outputs(const std::vector<unsigned char*>& outputs,
                    const std::vector<core::ResolvedTensor>& tensors) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& t = tensors[i];
    switch (t.dtype) {
      // Every bit set is a NaN in both float widths, and memset writes it at the memory's speed:
      // an element-by-element fill of 32 MiB took 8 ms, twice a timing pair, at the cpu size.
      case core::DType::f32:
      case core::DType::f64:
        std::memset(outputs[i], 0xff, t.bytes);
        break;
      case core::DType::i32:
        fill(outputs[i], t.numel, std::int32_t{-0x5a5a5a5b});
        break;
      case core::DType::i64:
        fill(outputs[i], t.numel, std::int64_t{-0x5a5a5a5a5a5a5a5bLL});
        break;
    }
  }
}

}  // namespace kforge::eval
