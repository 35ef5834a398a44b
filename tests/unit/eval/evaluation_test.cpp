#include "eval/evaluation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace eval {
namespace {

TEST(Status, NamesRoundTrip) {
  for (Status s : {Status::Ok, Status::CompileError, Status::RuntimeError, Status::Incorrect, Status::Timeout,
                   Status::LowerPrecision, Status::InternalError}) {
    auto parsed = parse_status(to_string(s));
    ASSERT_TRUE(parsed.has_value()) << to_string(s);
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_STREQ(to_string(Status::LowerPrecision), "lower_precision");
  EXPECT_FALSE(parse_status("OK").has_value());
}

TEST(EvaluationJson, RoundTripsSeedsDiagnosticsAndProfile) {
  Evaluation e;
  e.status = Status::Ok;
  e.correct = true;
  e.seeds.push_back({21, true, 1e-7, 0.5, 0.25, 0.125});
  e.diagnostics = {"k.py:3:1: note: x"};
  e.profile = trn::Profile{};
  e.profile->latency = 0.75;
  Evaluation back = evaluation_from_json(to_json(e));
  EXPECT_EQ(back.status, Status::Ok);
  EXPECT_TRUE(back.correct);
  ASSERT_EQ(back.seeds.size(), 1u);
  EXPECT_EQ(back.seeds[0].seed, 21);
  EXPECT_DOUBLE_EQ(back.seeds[0].max_rel_diff, 0.125);
  EXPECT_EQ(back.diagnostics, e.diagnostics);
  ASSERT_TRUE(back.profile.has_value());
  EXPECT_DOUBLE_EQ(back.latency_ms(), 0.75);
  EXPECT_EQ(to_json(e)["latency_ms"], 0.75);
}

TEST(EvaluationJson, NoProfileIsNull) {
  Evaluation e;
  e.status = Status::Incorrect;
  EXPECT_TRUE(to_json(e)["profile"].is_null());
  EXPECT_FALSE(evaluation_from_json(to_json(e)).profile.has_value());
}

TEST(EvaluationJson, BadInputNamesTheProblem) {
  EXPECT_THROW(evaluation_from_json(nlohmann::json::array()), std::runtime_error);
  try {
    evaluation_from_json({{"status", "fine"}});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown status 'fine'"), std::string::npos);
  }
  try {
    evaluation_from_json({{"status", "ok"}, {"correct", "yes"}});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'correct'"), std::string::npos);
  }
}

}  // namespace
}  // namespace eval
