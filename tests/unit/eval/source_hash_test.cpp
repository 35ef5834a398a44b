#include "eval/source_hash.h"

#include <gtest/gtest.h>

namespace eval {
namespace {

TEST(NormalizeSource, DropsCommentsTrailingSpaceAndBlankLines) {
  EXPECT_EQ(normalize_source("def f(x):  # doc\n\n    return x   \r\n# end\n"), "def f(x):\n    return x\n");
}

TEST(NormalizeSource, KeepsHashInsideStrings) {
  EXPECT_EQ(normalize_source("s = 'a#b'  # c\n"), "s = 'a#b'\n");
  EXPECT_EQ(normalize_source("s = \"x\\\"#\"\n"), "s = \"x\\\"#\"\n");
}

TEST(NormalizeSource, KeepsTripleQuotedBlocksVerbatim) {
  EXPECT_EQ(normalize_source("d = '''a # b\n\n  c'''  # tail\n"), "d = '''a # b\n\n  c'''\n");
}

TEST(NormalizeSource, KeepsIndentation) {
  EXPECT_NE(normalize_source("if a:\n  b\n"), normalize_source("if a:\nb\n"));
}

}  // namespace
}  // namespace eval
