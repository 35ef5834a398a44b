#include "eval/process.h"

#include <signal.h>

#include <chrono>

#include <gtest/gtest.h>

namespace eval {
namespace {

TEST(RunCapture, CapturesOutputAndExitCode) {
  CaptureResult r = run_capture({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_TRUE(r.status.exited);
  EXPECT_EQ(r.status.code, 3);
  EXPECT_EQ(r.status.describe(), "exit 3");
}

TEST(RunCapture, TimeoutKillsTheWholeGroup) {
  auto start = std::chrono::steady_clock::now();
  // The background sleep keeps the pipe open: only a group kill ends this quickly.
  CaptureResult r = run_capture({"/bin/sh", "-c", "sleep 30 & sleep 30"}, 0.3);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.status.timed_out);
  EXPECT_LT(took, 5.0);
}

TEST(RunCapture, MissingProgramIsAClearError) {
  try {
    run_capture({"/nonexistent/accelopt-profiler"}, 5);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/accelopt-profiler"), std::string::npos);
  }
}

TEST(ChildProcess, ReportsSignalDeath) {
  ChildProcess child({"/bin/sh", "-c", "kill -ABRT $$"}, "");
  while (!child.poll_exit()) {
  }
  EXPECT_FALSE(child.status().exited);
  EXPECT_EQ(child.status().signal, SIGABRT);
}

TEST(ChildProcess, TerminateMarksTimeout) {
  ChildProcess child({"/bin/sh", "-c", "sleep 30"}, "");
  child.terminate(0.5, true);
  EXPECT_FALSE(child.running());
  EXPECT_TRUE(child.status().timed_out);
}

}  // namespace
}  // namespace eval
