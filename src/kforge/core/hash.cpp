// XXH64, written from its public specification.
#include "kforge/core/hash.h"

#include <fmt/format.h>
#include <cstring>
#include <vector>

namespace kforge::core {
namespace {

constexpr std::uint64_t P1 = 11400714785074694791ULL;
constexpr std::uint64_t P2 = 14029467366897019727ULL;
constexpr std::uint64_t P3 = 1609587929392839161ULL;
constexpr std::uint64_t P4 = 9650029242287828579ULL;
constexpr std::uint64_t P5 = 2870177450012600261ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
  acc += input * P2;
  acc = rotl(acc, 31);
  return acc * P1;
}
inline std::uint64_t merge(std::uint64_t acc, std::uint64_t val) {
  acc ^= round(0, val);
  return acc * P1 + P4;
}

}  // namespace

std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* end = p + size;
  std::uint64_t h;
  if (size >= 32) {
    std::uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    const unsigned char* limit = end - 32;
    do {
      v1 = round(v1, read64(p));
      v2 = round(v2, read64(p + 8));
      v3 = round(v3, read64(p + 16));
      v4 = round(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + P5;
  }
  h += size;
  while (p + 8 <= end) {
    h ^= round(0, read64(p));
    h = rotl(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= static_cast<std::uint64_t>(read32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= (*p) * P5;
    h = rotl(h, 11) * P1;
    ++p;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

std::uint64_t hash64_parallel(const void* data, std::size_t size, std::uint64_t seed) {
  constexpr std::size_t kChunk = 1 << 20;
  const std::size_t chunks = (size + kChunk - 1) / kChunk;
  if (chunks <= 1) return hash64(data, size, seed);
  std::vector<std::uint64_t> parts(chunks);
  const auto* p = static_cast<const unsigned char*>(data);
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c)
    parts[c] = hash64(p + c * kChunk, std::min(kChunk, size - c * kChunk), seed);
  return hash64(parts.data(), parts.size() * sizeof(std::uint64_t), seed ^ size);
}

Hasher& Hasher::add(std::string_view piece) {
  // The length goes in first so ("ab","c") and ("a","bc") differ.
  std::uint64_t n = piece.size();
  a_ = hash64(&n, sizeof n, a_);
  b_ = hash64(&n, sizeof n, b_);
  a_ = hash64(piece.data(), piece.size(), a_);
  b_ = hash64(piece.data(), piece.size(), b_);
  return *this;
}

Hasher& Hasher::add(std::uint64_t value) {
  return add(std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
}

std::string Hasher::hex() const { return hex64(a_) + hex64(b_); }

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

}  // namespace kforge::core
