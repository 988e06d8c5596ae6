#pragma once
// Expected failures as values: a Result<T> holds either a T or an Error whose message already
// carries its context ("task 12p_rmsnorm: task.toml:14: ..."). Bugs stay exceptions.

#include <string>
#include <utility>
#include <variant>

namespace kforge {

struct Error {
  std::string message;
};

// Prefixes context onto an error as it rises: with_context(e, "task 8p_gemm") -> "task 8p_gemm:
// ...".
inline Error with_context(Error e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

// E is the error type: Error here; a layer that needs more than a message (the model layer's
// LlmError carries a kind that decides retries) uses its own, with the same face.
template <typename T, typename E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(E error) : v_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const E& error() const { return std::get<E>(v_); }

 private:
  std::variant<T, E> v_;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace kforge
