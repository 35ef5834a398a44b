#include "agents/prompt_template.h"

#include <gtest/gtest.h>

namespace agents {
namespace {

TEST(RenderTemplate, ReplacesNamedPlaceholders) {
  EXPECT_EQ(render_template("t", "a {{x}} b {{y}} {{x}}", {{"x", "1"}, {"y", "two"}}), "a 1 b two 1");
  EXPECT_EQ(render_template("t", "json {\"k\": 1}", {}), "json {\"k\": 1}");
}

TEST(RenderTemplate, ValuesAreNotRescanned) {
  EXPECT_EQ(render_template("t", "{{code}}", {{"code", "{{not_a_placeholder}}"}}), "{{not_a_placeholder}}");
}

TEST(RenderTemplate, MissingOrUnclosedPlaceholderNamesTheTemplate) {
  try {
    render_template("planner", "x {{kernel}}", {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("planner"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("kernel"), std::string::npos);
  }
  EXPECT_THROW(render_template("t", "x {{oops\n}}", {{"oops", ""}}), std::invalid_argument);
}

TEST(Placeholders, ListedOnceInOrder) {
  EXPECT_EQ(placeholders("{{b}} {{a}} {{b}}"), (std::vector<std::string>{"b", "a"}));
}

TEST(PromptLibrary, ShipsEveryRoleTemplate) {
  PromptLibrary prompts;
  for (const char* name : {"planner", "executor", "summarizer", "fixer", "guide", "rules"}) {
    ASSERT_TRUE(prompts.has(name)) << name;
    EXPECT_FALSE(prompts.text(name).empty()) << name;
  }
  EXPECT_THROW(prompts.text("nope"), std::out_of_range);
  EXPECT_THROW(PromptLibrary("/nonexistent/prompt/dir"), std::runtime_error);
}

}  // namespace
}  // namespace agents
