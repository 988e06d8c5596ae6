#pragma once
// Arithmetic over named sizes, used for shapes ("H*D") and cost formulas ("2*M*N*K").
// Grammar: numbers, identifiers, + - * / % ** (power), parentheses, unary minus, and the
// functions min(a,b), max(a,b), cdiv(a,b) (ceiling division), sqrt(a), log2(a).

#include <map>
#include <string>
#include <string_view>

#include "kforge/core/result.h"

namespace kforge::core {

using Symbols = std::map<std::string, double, std::less<>>;

Result<double> evaluate_expr(std::string_view text, const Symbols& symbols);

}  // namespace kforge::core
