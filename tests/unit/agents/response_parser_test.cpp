#include "agents/response_parser.h"

#include <gtest/gtest.h>

namespace agents {
namespace {

TEST(ParsePlans, JsonArrayOfObjects) {
  auto plans = parse_plans(R"([{"title": "Fuse loops", "plan": "merge the two loop nests"},
                                {"title": "Bigger tiles", "description": "use 512 columns"}])", 12);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0].title, "Fuse loops");
  EXPECT_EQ(plans[0].text, "merge the two loop nests");
  EXPECT_EQ(plans[1].text, "use 512 columns");
}

TEST(ParsePlans, FencedJsonAmidProse) {
  auto plans = parse_plans("Here are my plans:\n```json\n[\"one\", \"two\", \"three\"]\n```\nGood luck.", 2);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0].text, "one");
  EXPECT_EQ(plans[1].title, "two");
}

TEST(ParsePlans, NumberedListWithContinuationLines) {
  std::string text =
      "Some intro.\n"
      "1. Fuse the exp and the reciprocal\n"
      "   into one activation.\n"
      "2) Load bigger tiles\n"
      "Plan 3: Keep rhs resident\n";
  auto plans = parse_plans(text, 12);
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0].title, "Fuse the exp and the reciprocal");
  EXPECT_NE(plans[0].text.find("into one activation."), std::string::npos);
  EXPECT_EQ(plans[1].title, "Load bigger tiles");
  EXPECT_EQ(plans[2].title, "Keep rhs resident");
}

TEST(ParsePlans, BulletsAndIndentedSubpoints) {
  auto plans = parse_plans("- **Fuse** ops\n  - detail a\n  - detail b\n- Reorder loops\n", 12);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_NE(plans[0].text.find("detail b"), std::string::npos);
  EXPECT_EQ(plans[1].title, "Reorder loops");
}

TEST(ParsePlans, GarbageGivesNothing) {
  EXPECT_TRUE(parse_plans("I cannot help with that.", 12).empty());
  EXPECT_TRUE(parse_plans("", 12).empty());
  EXPECT_TRUE(parse_plans("[]", 12).empty());
  EXPECT_TRUE(parse_plans("[{\"title\": \"\"}]", 12).empty());
}

TEST(ExtractCode, LastPythonBlockWins) {
  std::string text = "First try:\n```python\nv1\n```\nBetter:\n```python\nv2\nline\n```\n";
  EXPECT_EQ(extract_code(text).value(), "v2\nline\n");
}

TEST(ExtractCode, LabelledBeatsUnlabelled) {
  EXPECT_EQ(extract_code("```python\nkernel\n```\n```\nnot code\n```").value(), "kernel\n");
  EXPECT_EQ(extract_code("```\nonly\n```").value(), "only\n");
  EXPECT_EQ(extract_code("```py\nshort\n```").value(), "short\n");
}

TEST(ExtractCode, TruncatedOrMissingBlockIsNoCode) {
  EXPECT_FALSE(extract_code("no code here").has_value());
  EXPECT_FALSE(extract_code("```python\ndef kernel(a):\n    return").has_value());
  EXPECT_FALSE(extract_code("```python\n```").has_value());
  EXPECT_FALSE(extract_code("```json\n{}\n```").has_value());
}

TEST(ParseSummary, JsonAndTextForms) {
  auto s = parse_summary("```json\n{\"key_change\": \"fused loops\", \"lesson\": \"fuse elementwise ops\"}\n```");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->key_change, "fused loops");
  EXPECT_EQ(s->lesson, "fuse elementwise ops");

  auto t = parse_summary("**Key change:** moved the load out of the loop\n\n**Lesson:** hoist\ninvariant loads");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->key_change, "moved the load out of the loop");
  EXPECT_EQ(t->lesson, "hoist\ninvariant loads");

  EXPECT_FALSE(parse_summary("whatever").has_value());
}

}  // namespace
}  // namespace agents
