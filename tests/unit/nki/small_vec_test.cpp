// SmallVec (nki/small_vec.h): vector behaviour across the inline/heap boundary, and element
// lifetimes (only [0, size) constructed; values released when removed).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "nki/interpreter.h"
#include "nki/small_vec.h"

namespace nki {
namespace {

std::shared_ptr<const SourceFile> src(std::string text) {
  return std::make_shared<SourceFile>(SourceFile{"t.py", std::move(text)});
}

TEST(SmallVec, BehavesLikeAVectorInlineAndSpilled) {
  SmallVec<int64_t, 2> v;
  for (int64_t i = 0; i < 5; ++i) v.push_back(i);  // spills past 2
  EXPECT_EQ(v, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  v.insert(v.begin(), 2, 9);
  EXPECT_EQ(v, (std::vector<int64_t>{9, 9, 0, 1, 2, 3, 4}));
  EXPECT_EQ(erase_if(v, [](int64_t x) { return x % 2 == 1; }), 4u);  // 9, 9, 1, 3
  EXPECT_EQ(v, (std::vector<int64_t>{0, 2, 4}));
  SmallVec<int64_t, 2> copy = v, moved = std::move(copy);
  EXPECT_EQ(moved, v);
  EXPECT_TRUE(copy.empty());
  SmallVec<int64_t, 2> small{7, 8}, small_copy = small, small_moved = std::move(small);
  EXPECT_EQ(small_copy, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(small_moved, small_copy);
  small_copy = v;  // inline <- heap
  EXPECT_EQ(small_copy, v);
  v = small_moved;  // heap <- inline
  EXPECT_EQ(v, (std::vector<int64_t>{7, 8}));
  v.resize(4, 1);
  EXPECT_EQ(v.to_vector(), (std::vector<int64_t>{7, 8, 1, 1}));
}

TEST(SmallVec, ConstructsAndReleasesOnlyItsElements) {
  auto obj = std::make_shared<StrObj>("x");
  {
    SmallVec<Value, 3> v;
    v.push_back(Value(obj));
    v.push_back(Value(obj));
    EXPECT_EQ(obj.use_count(), 3);
    v.resize(1);
    EXPECT_EQ(obj.use_count(), 2);
    for (int i = 0; i < 4; ++i) v.push_back(Value(obj));  // spills past 3
    EXPECT_EQ(obj.use_count(), 6);
    SmallVec<Value, 3> moved = std::move(v);
    EXPECT_EQ(obj.use_count(), 6);
    v.push_back(Value(obj));
    EXPECT_EQ(obj.use_count(), 7);
  }
  EXPECT_EQ(obj.use_count(), 1);
}

// Literal tuples are shared per expression, as CPython's code constants are; others are not.
TEST(Interpreter, LiteralTuplesAreBuiltOnce) {
  Interpreter in;
  in.load_module(src("def lit():\n    return (1, None, 'a')\n"
                     "def built(x):\n    return (x, None)\n"
                     "print(lit() is lit(), lit() == (1, None, 'a'))\n"
                     "print(built(1) is built(1), built(1) == (1, None))\n"));
  EXPECT_EQ(in.output(), "True True\nFalse True\n");
}

}  // namespace
}  // namespace nki
