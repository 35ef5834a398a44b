// TaskResult::speedup_confidence: a speedup is confirmed only when the simulator's error on
// speedups (or, without one, the latency bands of baseline and best) cannot make it a slowdown,
// and the summary table says so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/run_output.h"
#include "search/search_state.h"

namespace {

search::TaskResult result(double base, double best, double width) {
  search::TaskResult r;
  r.task = "t";
  r.baseline_latency_ms = base;
  r.best_latency_ms = best;
  r.baseline_latency_low = base * (1 - width), r.baseline_latency_high = base * (1 + width);
  r.best_latency_low = best * (1 - width), r.best_latency_high = best * (1 + width);
  return r;
}

TEST(SpeedupConfidence, OverlappingBandsAreUnconfirmed) {
  EXPECT_EQ(result(1.0, 0.9, 0.2).speedup_confidence(), "unconfirmed");  // 0.9*1.2 >= 1*0.8
  EXPECT_EQ(result(1.0, 0.5, 0.2).speedup_confidence(), "confirmed");    // 0.6 < 0.8
}

TEST(SpeedupConfidence, NoSpeedupOrNoBandSaysNothing) {
  EXPECT_EQ(result(1.0, 1.0, 0.2).speedup_confidence(), "");
  EXPECT_EQ(result(1.0, 1.1, 0.2).speedup_confidence(), "");
  auto unknown = result(1.0, 0.5, 0.2);
  unknown.baseline_latency_low = 0;  // e.g. numbers from a real profiler
  EXPECT_EQ(unknown.speedup_confidence(), "");
}

TEST(SpeedupConfidence, TheSpeedupErrorDecidesWhenKnown) {
  // Latency bands of +-20% overlap for a 1.25x speedup, but the error on speedups between versions
  // of one kernel is smaller: 1.25 * 0.9 > 1.
  auto r = result(1.0, 0.8, 0.2);
  EXPECT_EQ(r.speedup_confidence(), "unconfirmed");
  r.speedup_error_low = 0.9, r.speedup_error_high = 1.11;
  EXPECT_EQ(r.speedup_confidence(), "confirmed");
  EXPECT_NEAR(r.speedup_range().first, 1.125, 1e-12);
  r.best_latency_ms = 0.95;  // 1.053x * 0.9 < 1
  EXPECT_EQ(r.speedup_confidence(), "unconfirmed");
  auto again = search::task_result_from_json(search::to_json(r));
  EXPECT_DOUBLE_EQ(again.speedup_error_high, 1.11);
  std::string table = search::format_summary({{"run", "r"}, {"status", "finished"}, {"tasks", {search::to_json(r)}}});
  EXPECT_NE(table.find("t: unconfirmed: the 1.053x speedup is inside the simulator's error on speedups between "
                       "versions of one kernel (the device's speedup may be 0.947-1.168x)"),
            std::string::npos)
      << table;
  r.baseline_latency_low = 0;  // a real profiler's numbers: nothing to say
  EXPECT_EQ(r.speedup_confidence(), "");
}

TEST(SpeedupConfidence, RoundTripsAndIsPrinted) {
  auto r = search::task_result_from_json(search::to_json(result(1.0, 0.9, 0.2)));
  EXPECT_DOUBLE_EQ(r.best_latency_high, 0.9 * 1.2);
  nlohmann::json task = search::to_json(r);
  EXPECT_EQ(task["speedup_confidence"], "unconfirmed");
  std::string table = search::format_summary({{"run", "r"}, {"status", "finished"}, {"tasks", {task}}});
  EXPECT_NE(table.find("unconfirmed"), std::string::npos) << table;
  EXPECT_NE(table.find("t: unconfirmed: the 1.111x speedup is inside the simulator's error band"), std::string::npos)
      << table;
}

}  // namespace
