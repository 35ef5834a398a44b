#include <gtest/gtest.h>

#include "loopnest/iexpr.h"

namespace {

using loopnest::Cmp;
using loopnest::IExpr;
using loopnest::Ranges;

std::string s(const IExpr& e) {
  return e.str([](int v) { return std::string(1, static_cast<char>('i' + v)); });
}

TEST(IExpr, SpellingsOfTheSameIndexAreEqual) {
  IExpr i = IExpr::var(0), j = IExpr::var(1);
  // (c + 1) * 512 - c * 512 == 512; 128*i + j == j + 128*i
  EXPECT_EQ((i + 1) * 512 - i * 512, IExpr(512));
  EXPECT_EQ(i * 128 + j, j + i * 128);
  EXPECT_EQ(s(i * 1024 + 5), "1024*i + 5");
  EXPECT_EQ(s(-i + j * 2 - 3), "-i + 2*j - 3");
}

TEST(IExpr, QuasiAffineDivisionsSimplifyWithRanges) {
  IExpr i = IExpr::var(0), j = IExpr::var(1);
  Ranges r = {{0, {0, 31}}, {1, {0, 3}}};
  // (4*i + j) // 4 == i and (4*i + j) % 4 == j when 0 <= j < 4
  EXPECT_EQ(IExpr::floordiv(i * 4 + j, 4, &r), i);
  EXPECT_EQ(IExpr::mod(i * 4 + j, 4, &r), j);
  // Without ranges only the exact part divides out.
  EXPECT_EQ(s(IExpr::floordiv(i * 4 + j, 4)), "i + j // 4");
  EXPECT_EQ(IExpr::floordiv(IExpr(7168), 1024), IExpr(7));
  EXPECT_EQ(s(IExpr::mod(i, 4)), "i % 4");
  EXPECT_EQ(*IExpr::mod(i, 4).eval({{0, 10}}), 2);
}

TEST(IExpr, ClampedSizesOfARaggedLastTile) {
  IExpr r = IExpr::var(0);
  Ranges rg = {{0, {0, 85}}};
  // height = 128 if 128*r + 128 <= 10944 else 10944 - 128*r
  IExpr h = IExpr::select(r * 128 + 128, Cmp::Le, IExpr(10944), IExpr(128), IExpr(10944) - r * 128, &rg);
  EXPECT_FALSE(h.is_constant());
  EXPECT_EQ(*h.eval({{0, 0}}), 128);
  EXPECT_EQ(*h.eval({{0, 85}}), 64);
  auto b = h.bounds(rg);
  ASSERT_TRUE(b);
  EXPECT_LE(b->first, 64);
  EXPECT_GE(b->second, 128);
  // Decided conditions fold away.
  EXPECT_EQ(IExpr::select(r, Cmp::Lt, IExpr(100), IExpr(1), IExpr(2), &rg), IExpr(1));
  EXPECT_EQ(IExpr::min(IExpr(128), IExpr(10944) - r * 128, &rg), IExpr::min(IExpr(10944) - r * 128, IExpr(128), &rg));
}

TEST(IExpr, SubstitutionAndProducts) {
  IExpr i = IExpr::var(0), j = IExpr::var(1);
  EXPECT_EQ((i * 512 + j).substitute(0, j * 2), j * 1025);
  EXPECT_TRUE(i.times(IExpr(3)));
  EXPECT_FALSE(i.times(j));
  EXPECT_TRUE((i * 2).uses(0));
  EXPECT_FALSE((i * 2).uses(1));
  EXPECT_TRUE(IExpr::floordiv(i + j, 3).uses(1));
}

}  // namespace
