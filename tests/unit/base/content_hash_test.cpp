#include "base/content_hash.h"

#include <gtest/gtest.h>

namespace {

using base::content_hash;

TEST(ContentHash, PartsAreDelimited) {
  EXPECT_NE(content_hash({"ab", "c"}), content_hash({"a", "bc"}));
  EXPECT_EQ(content_hash({"x"}), content_hash({"x"}));
  EXPECT_EQ(content_hash({"x"}).size(), 32u);
  EXPECT_NE(content_hash(""), content_hash(std::string(1, '\0')));
}

TEST(ContentHash, OneTextIsTheHashOfOnePart) { EXPECT_EQ(content_hash("abc"), content_hash({"abc"})); }

// These values are stored: evaluation keys and LLM request hashes in run.db, memory item ids in
// memory.json. A resumed run finds its evaluations and answers only while they stay the same.
TEST(ContentHash, ValuesAreFrozenBecauseRunStoresKeepThem) {
  EXPECT_EQ(content_hash("abc"), "50b050fbe53cea152d9cb40a4a379d78");
  EXPECT_EQ(content_hash(""), "35e5fecb0492be3207fc0e07b4bd112f");
  EXPECT_EQ(content_hash({"a", "bc"}), "e8b98a923a8942a755669b0488b5662e");
}

}  // namespace
