#pragma once
// Content hashing: XXH64 for buffers (inputs hashed before and after every call, so it must be
// fast) and a 128-bit Hasher for cache keys built from several pieces.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kforge::core {

std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed = 0);

// For large buffers: 1 MiB chunks hashed in parallel, then the chunk hashes hashed. The value
// does not depend on the thread count (but differs from hash64 of the same bytes).
std::uint64_t hash64_parallel(const void* data, std::size_t size, std::uint64_t seed = 0);

// Feeds named pieces into two independent XXH64 streams; hex() is a 32-character key.
class Hasher {
 public:
  Hasher& add(std::string_view piece);
  Hasher& add(std::uint64_t value);
  std::string hex() const;

 private:
  std::uint64_t a_ = 0x6b666f7267650001ULL;
  std::uint64_t b_ = 0x6b666f7267650002ULL;
};

std::string hex64(std::uint64_t v);

}  // namespace kforge::core
