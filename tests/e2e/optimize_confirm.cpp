// `accelopt optimize` and the simulator's error band: every task result says whether its speedup
// is outside the band of its baseline and best ("confirmed") or inside it ("unconfirmed"), and
// --confirm-with-profiler re-profiles each task's baseline and best through the command-profiler
// protocol (here a fake profiler script) and reports both numbers.
#include "optimize_e2e.h"

namespace {

using namespace optimize_e2e;

// Prints a neuron-profile summary whose latency depends on the kernel: 0.030 ms for the wide
// (512-column) kernel the fake model writes, 0.040 ms for anything else (the baseline).
const char* kFakeProfiler = R"(#!/bin/sh
if grep -q 'cols // 512' "$1"; then latency=0.030; else latency=0.040; fi
test -r "$2" || exit 3
echo "{\"summary\": [{\"latency\": $latency, \"hbm_read_bytes\": 1048576}]}"
)";

TEST_F(OptimizeE2E, SpeedupsCarryTheirErrorBandAndTheProfilerConfirmsThem) {
  start_server(script());
  spit(dir_ / "fake-profiler.sh", kFakeProfiler);
  fs::permissions(dir_ / "fake-profiler.sh", fs::perms::owner_all);
  Result r = run(optimize_args("run", "--confirm-with-profiler " + (dir_ / "fake-profiler.sh").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto task = summary("run")["tasks"][0];
  ASSERT_GT(task["speedup"].get<double>(), 1.0) << task.dump(2);

  // The bands come from the simulated profiles and bracket a positive range.
  double base_low = task["baseline_latency_low"], base_high = task["baseline_latency_high"];
  double best_low = task["best_latency_low"], best_high = task["best_latency_high"];
  EXPECT_GT(base_low, 0);
  EXPECT_GE(base_high, base_low);
  EXPECT_GT(best_low, 0);
  EXPECT_GE(best_high, best_low);
  std::string confidence = task["speedup_confidence"];
  EXPECT_EQ(confidence, best_high < base_low ? "confirmed" : "unconfirmed");
  if (confidence == "unconfirmed") {
    EXPECT_NE(r.output.find("unconfirmed: the"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("inside the simulator's error band"), std::string::npos) << r.output;
  }

  // The profiler's numbers, next to the simulated ones.
  EXPECT_DOUBLE_EQ(task["profiler_baseline_latency_ms"].get<double>(), 0.040);
  EXPECT_DOUBLE_EQ(task["profiler_best_latency_ms"].get<double>(), 0.030);
  EXPECT_EQ(task["profiler_note"], "");
  EXPECT_NE(r.output.find("profiler: baseline 0.0400 ms"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("speedup 1.333x on the profiler"), std::string::npos) << r.output;

  // `accelopt show` reprints both.
  Result show = run("show " + (dir_ / "run").string());
  EXPECT_NE(show.output.find("profiler: baseline 0.0400 ms"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find(confidence), std::string::npos) << show.output;
}

TEST_F(OptimizeE2E, AProfilerThatFailsIsReportedNotFatal) {
  start_server(script());
  spit(dir_ / "broken-profiler.sh", "#!/bin/sh\necho 'no device' >&2\nexit 1\n");
  fs::permissions(dir_ / "broken-profiler.sh", fs::perms::owner_all);
  Result r = run(optimize_args("run", "--retries 0 --confirm-with-profiler " +
                                          (dir_ / "broken-profiler.sh").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto task = summary("run")["tasks"][0];
  EXPECT_EQ(task["profiler_baseline_latency_ms"].get<double>(), 0.0);
  std::string note = task["profiler_note"];
  EXPECT_NE(note.find("baseline not measured"), std::string::npos) << note;
  EXPECT_NE(r.output.find("profiler: baseline - ms"), std::string::npos) << r.output;
}

}  // namespace
