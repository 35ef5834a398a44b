// `accelopt optimize` budgets against the scripted fake LLM server (issue 12, defects 1 and 2):
// a USD budget holds call by call (the budget gate admits a call only when it fits, keeping the
// summaries of the round's rewrite pairs back), what was paid for reaches memory, and a resumed
// run takes a larger budget given again.
#include <regex>

#include "optimize_e2e.h"

namespace {

using namespace optimize_e2e;

// The fixture's script with every call costing the same (100 input + 40 output tokens, 0.0006
// USD at the fixture's prices), so the gate's estimates are exact and the budget holds exactly.
std::string uniform_script() {
  return std::regex_replace(script(), std::regex(R"(usage: \{input_tokens: \d+, output_tokens: \d+\})"),
                            "usage: {input_tokens: 100, output_tokens: 40}");
}

constexpr double kCallUsd = (100 * 2.0 + 40 * 10.0) / 1e6;

// Defect 2: --budget-usd 0.001 with N=4 spent 0.0048 USD (4.8x): the budget was checked only
// between phases, and four executor calls went out at once.
TEST_F(OptimizeE2E, UsdBudgetHoldsCallByCall) {
  start_server(uniform_script());
  Result r = run(optimize_args("run", "--budget-usd 0.001"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "budget_stop") << r.output;
  EXPECT_EQ(s["stop"], "budget_usd");
  double spent = s["usage"]["cost_usd"].get<double>();
  EXPECT_LE(spent, 0.001 + 1e-12) << r.output;
  EXPECT_NEAR(spent, kCallUsd, 1e-12);  // the plans; a kernel and its summary would not have fit
  EXPECT_EQ(server_->stats().requests, 1);
  EXPECT_TRUE(fs::exists(dir_ / "run/best/add_M256_N512_0.py"));  // the baseline is still reported
}

// Defect 2 (second half): once the budget ran short the summarizer was skipped, so the rewrite
// pairs that had been paid for never reached memory. Every pair the round found is summarized,
// and the total stays within the budget.
TEST_F(OptimizeE2E, PairsPaidForReachMemoryWithinTheBudget) {
  start_server(uniform_script());
  Result r = run(optimize_args("run", "--budget-usd 0.0045"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "budget_stop") << r.output;
  EXPECT_LE(s["usage"]["cost_usd"].get<double>(), 0.0045 + 1e-12) << s["usage"].dump();
  const auto& round = s["tasks"][0]["rounds"][0];
  int pairs = round["positive_pairs"].get<int>() + round["negative_pairs"].get<int>();
  EXPECT_GE(pairs, 1) << round.dump();
  EXPECT_EQ(server_->stats().by_rule["summarizer"], std::min(pairs, 8)) << round.dump();
  auto memory = nlohmann::json::parse(slurp(dir_ / "run/memory.json"));
  EXPECT_EQ(memory["items"].size(), static_cast<size_t>(std::min(pairs, 3)));
  // The calls the gate refused were recorded as refused, not as failures.
  EXPECT_EQ(s["usage"]["failed_calls"].get<int>(), 0);
}

// Defect 1: resuming with a larger budget printed "budget_usd reached before round 2" and sent
// nothing (the saved budget overwrote the one given again before it was read).
TEST_F(OptimizeE2E, ResumeWithALargerBudgetContinuesAndKeepsIt) {
  start_server(script());
  Result first = run(optimize_args("run", "--budget-usd 0.001"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(summary("run")["status"], "budget_stop");
  int64_t before = server_->stats().requests;

  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string() + " --budget-usd 1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_GT(server_->stats().requests, before) << resumed.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "finished") << resumed.output;
  EXPECT_EQ(s["tasks"][0]["rounds_done"], 2);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
  // The larger budget was saved: a later resume does not fall back to 0.001.
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "run/config.json"))["budgets"]["usd"], 1.0);
}

}  // namespace
