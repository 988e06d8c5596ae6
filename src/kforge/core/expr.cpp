// A small recursive-descent evaluator; errors name the offending token and its column.
#include "kforge/core/expr.h"

#include <fmt/format.h>
#include <cctype>
#include <cmath>

namespace kforge::core {
namespace {

class Parser {
 public:
  Parser(std::string_view text, const Symbols& symbols) : text_(text), symbols_(symbols) {}

  Result<double> parse() {
    double v = sum();
    skip_space();
    if (!error_.empty()) return Error{error_};
    if (pos_ != text_.size())
      return Error{
          fmt::format("unexpected '{}' at column {} in '{}'", text_[pos_], pos_ + 1, text_)};
    return v;
  }

 private:
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  double sum() {
    double v = product();
    while (error_.empty()) {
      if (eat("+"))
        v += product();
      else if (eat("-"))
        v -= product();
      else
        break;
    }
    return v;
  }

  double product() {
    double v = power();
    while (error_.empty()) {
      skip_space();
      if (text_.substr(pos_, 2) == "**") break;  // handled by power()
      if (eat("*"))
        v *= power();
      else if (eat("/")) {
        double d = power();
        if (d == 0)
          fail(fmt::format("division by zero in '{}'", text_));
        else
          v /= d;
      } else if (eat("%")) {
        double d = power();
        if (d == 0)
          fail(fmt::format("modulo by zero in '{}'", text_));
        else
          v = std::fmod(v, d);
      } else
        break;
    }
    return v;
  }

  double power() {
    double base = unary();
    if (eat("**")) return std::pow(base, power());  // right-associative
    return base;
  }

  double unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return atom();
  }

  double atom() {
    skip_space();
    if (pos_ >= text_.size()) {
      fail(fmt::format("expression '{}' ends early", text_));
      return 0;
    }
    if (eat("(")) {
      double v = sum();
      if (!eat(")")) fail(fmt::format("missing ')' in '{}'", text_));
      return v;
    }
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}' at column {} in '{}'", c, pos_ + 1, text_));
    return 0;
  }

  double number() {
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
      ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    std::string token(text_.substr(start, pos_ - start));
    try {
      return std::stod(token);
    } catch (...) {
      fail(fmt::format("bad number '{}' in '{}'", token, text_));
      return 0;
    }
  }

  double name() {
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string_view id = text_.substr(start, pos_ - start);
    if (eat("(")) return call(id);
    auto it = symbols_.find(id);
    if (it == symbols_.end()) {
      fail(fmt::format("unknown symbol '{}' in '{}'", id, text_));
      return 0;
    }
    return it->second;
  }

  double call(std::string_view fn) {
    double a = sum();
    double b = 0;
    bool two = eat(",");
    if (two) b = sum();
    if (!eat(")")) fail(fmt::format("missing ')' after arguments of {}() in '{}'", fn, text_));
    bool want_two = fn == "min" || fn == "max" || fn == "cdiv";
    if (want_two != two) {
      fail(fmt::format("{}() takes {} argument(s) in '{}'", fn, want_two ? 2 : 1, text_));
      return 0;
    }
    if (fn == "min") return std::min(a, b);
    if (fn == "max") return std::max(a, b);
    if (fn == "cdiv") return b == 0 ? (fail("cdiv by zero"), 0.0) : std::ceil(a / b);
    if (fn == "sqrt") return std::sqrt(a);
    if (fn == "log2") return std::log2(a);
    fail(fmt::format("unknown function '{}' in '{}'", fn, text_));
    return 0;
  }

  std::string_view text_;
  const Symbols& symbols_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<double> evaluate_expr(std::string_view text, const Symbols& symbols) {
  return Parser(text, symbols).parse();
}

}  // namespace kforge::core
