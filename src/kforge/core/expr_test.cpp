// The size-expression evaluator: arithmetic, precedence, functions and errors that name the token.
#include "kforge/core/expr.h"

#include <gtest/gtest.h>

namespace kforge::core {

TEST(Expr, Arithmetic) {
  Symbols s{{"M", 8}, {"N", 3}, {"K", 2}};
  EXPECT_DOUBLE_EQ(*evaluate_expr("2*M*N*K", s), 96);
  EXPECT_DOUBLE_EQ(*evaluate_expr("M + N * K", s), 14);
  EXPECT_DOUBLE_EQ(*evaluate_expr("(M + N) * K", s), 22);
  EXPECT_DOUBLE_EQ(*evaluate_expr("M / K - 1", s), 3);
  EXPECT_DOUBLE_EQ(*evaluate_expr("-N + 4", s), 1);
  EXPECT_DOUBLE_EQ(*evaluate_expr("2 ** 3 ** 2", s), 512);  // right-associative
  EXPECT_DOUBLE_EQ(*evaluate_expr("M % N", s), 2);
  EXPECT_DOUBLE_EQ(*evaluate_expr("1e3 * 2.5", s), 2500);
}

TEST(Expr, Functions) {
  Symbols s{{"S", 100}, {"B", 64}};
  EXPECT_DOUBLE_EQ(*evaluate_expr("cdiv(S, B)", s), 2);
  EXPECT_DOUBLE_EQ(*evaluate_expr("min(S, B) + max(S, B)", s), 164);
  EXPECT_DOUBLE_EQ(*evaluate_expr("sqrt(B) * log2(B)", s), 48);
}

TEST(Expr, ErrorsNameTheProblem) {
  Symbols s{{"M", 8}};
  auto unknown = evaluate_expr("M*Q", s);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown symbol 'Q'"), std::string::npos);
  EXPECT_FALSE(evaluate_expr("M / 0", s).ok());
  EXPECT_FALSE(evaluate_expr("(M + 1", s).ok());
  EXPECT_FALSE(evaluate_expr("M +", s).ok());
  EXPECT_FALSE(evaluate_expr("M $ 2", s).ok());
  EXPECT_FALSE(evaluate_expr("min(M)", s).ok());
  EXPECT_FALSE(evaluate_expr("nosuch(M)", s).ok());
}

}  // namespace kforge::core
