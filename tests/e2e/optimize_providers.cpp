// Provider features of the agents config (issue 12), end to end against the scripted fake
// server: the Anthropic Messages stream with a cached prompt prefix, `extra` request keys, K
// samples in one request (`n`), a fallback model, an ensemble, cached-token pricing, and the
// spending broken down by agent and model in summary.json and `accelopt show`.
#include <regex>

#include "optimize_e2e.h"

namespace {

using namespace optimize_e2e;

TEST_F(OptimizeE2E, ProviderFeaturesWorkEndToEnd) {
  // Every answer reports 50 of its prompt tokens as read from the provider's cache.
  std::string cached = std::regex_replace(script(), std::regex(R"(usage: \{input_tokens: (\d+),)"),
                                          "usage: {input_tokens: $1, cached_tokens: 50,");
  start_server("rules:\n  - name: down\n    model: fake-executor-down\n    replies:\n      - {status: 503}\n" +
               cached.substr(std::string("rules:\n").size()));
  spit(dir_ / "agents.yaml", fmt::format(R"(defaults: {{api: openai, url: "{}", timeout_s: 5, max_retries: 0,
           backoff_initial_s: 0.01, jitter_seed: 7, price_in: 2.0, price_out: 10.0, price_cached_in: 0.5}}
agents:
  planner: {{model: fake-planner, api: anthropic, stream: true}}
  executor:
    model: fake-executor-down
    n_samples: true
    extra: {{top_p: 0.9, seed: 1}}
    fallbacks: [{{model: fake-executor}}]
  summarizer:
    model: fake-summarizer-a
    ensemble: [{{model: fake-summarizer-b}}]
  fixer: {{model: fake-fixer, stream: true}}
)", server_->url()));
  std::string args = optimize_args("run");
  args.replace(args.find("--K 1"), 5, "--K 2");
  Result r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "finished");
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));

  int planner_requests = 0, executor_requests = 0, fallback_requests = 0;
  for (const auto& request : server_->requests()) {
    auto body = nlohmann::json::parse(request.body);
    if (body["model"] == "fake-planner") {
      ++planner_requests;
      EXPECT_EQ(request.path, "/v1/messages");
      EXPECT_EQ(body["stream"], true);
      const auto& content = body["messages"][0]["content"];  // guide and reference marked for the cache
      ASSERT_TRUE(content.is_array()) << body.dump();
      EXPECT_EQ(content[0]["cache_control"]["type"], "ephemeral");
      EXPECT_NE(content[0]["text"].get<std::string>().find("def forward"), std::string::npos);
    } else if (body["model"] == "fake-executor-down" || body["model"] == "fake-executor") {
      (body["model"] == "fake-executor" ? fallback_requests : executor_requests)++;
      EXPECT_EQ(body["n"], 2);  // K = 2 kernels in one request
      EXPECT_EQ(body["top_p"], 0.9);
      EXPECT_EQ(body["seed"], 1);
    }
  }
  EXPECT_EQ(planner_requests, 3);  // round 1: the baseline; round 2: two candidates
  EXPECT_GT(executor_requests, 0);
  EXPECT_EQ(fallback_requests, executor_requests);  // every executor call fell back once

  // Usage and cost match the server's, the cached part priced at price_cached_in.
  auto stats = server_->stats();
  const auto& usage = s["usage"];
  EXPECT_EQ(usage["input_tokens"].get<int64_t>(), stats.input_tokens);
  EXPECT_EQ(usage["cached_input_tokens"].get<int64_t>(), stats.cached_tokens);
  EXPECT_EQ(usage["output_tokens"].get<int64_t>(), stats.output_tokens);
  double usd = ((stats.input_tokens - stats.cached_tokens) * 2.0 + stats.cached_tokens * 0.5 + stats.output_tokens * 10.0) / 1e6;
  EXPECT_NEAR(usage["cost_usd"].get<double>(), usd, 1e-9);
  // Broken down by agent and by the model that answered; the rows add up to the totals.
  for (const char* breakdown : {"by_agent", "by_model"}) {
    int64_t calls = 0;
    double cost = 0;
    for (const auto& [name, row] : usage[breakdown].items()) {
      calls += row["calls"].get<int64_t>();
      cost += row["cost_usd"].get<double>();
    }
    EXPECT_EQ(calls, usage["calls"].get<int64_t>()) << breakdown;
    EXPECT_NEAR(cost, usage["cost_usd"].get<double>(), 1e-9) << breakdown;
  }
  EXPECT_EQ(usage["by_agent"]["executor"]["calls"].get<int64_t>(), executor_requests);
  EXPECT_EQ(usage["by_model"]["fake-executor"]["calls"].get<int64_t>(), executor_requests);
  EXPECT_FALSE(usage["by_model"].contains("fake-executor-down"));
  EXPECT_TRUE(s["tasks"][0]["usage"].contains("by_agent"));
  Result show = run("show " + (dir_ / "run").string());
  EXPECT_NE(show.output.find("agent executor"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("model fake-planner"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("cached)"), std::string::npos) << show.output;
}

}  // namespace
