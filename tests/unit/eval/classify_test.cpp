// The table that decides an evaluation's status from a typed failure (eval/failure.h): one row
// per (stage, kind, limit) that matters. No status is decided by message text.
#include <gtest/gtest.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "eval/evaluation.h"
#include "eval/failure.h"

namespace {

using eval::Stage;
using eval::Status;
using K = nki::ErrorKind;
using L = nki::LimitKind;

struct Row {
  Stage stage;
  K kind;
  L limit;
  Status status;
};

const Row kTable[] = {
    // The kernel file does not load.
    {Stage::ReadKernel, K::Value, L::None, Status::CompileError},
    {Stage::ReadKernel, K::Limit, L::SourceSize, Status::CompileError},
    {Stage::ParseKernel, K::Syntax, L::None, Status::CompileError},
    {Stage::ParseKernel, K::Unsupported, L::None, Status::CompileError},
    {Stage::ParseKernel, K::Sandbox, L::None, Status::CompileError},
    {Stage::ParseKernel, K::Limit, L::Nesting, Status::CompileError},
    {Stage::ParseKernel, K::Limit, L::Time, Status::Timeout},
    // The kernel runs.
    {Stage::RunKernel, K::Import, L::None, Status::CompileError},
    {Stage::RunKernel, K::Name, L::None, Status::CompileError},
    {Stage::RunKernel, K::Type, L::None, Status::RuntimeError},
    {Stage::RunKernel, K::Value, L::None, Status::RuntimeError},
    {Stage::RunKernel, K::Index, L::None, Status::RuntimeError},
    {Stage::RunKernel, K::Rule, L::None, Status::RuntimeError},
    {Stage::RunKernel, K::Assertion, L::None, Status::RuntimeError},
    {Stage::RunKernel, K::Limit, L::Steps, Status::Timeout},  // an endless loop under default limits
    {Stage::RunKernel, K::Limit, L::Time, Status::Timeout},
    {Stage::RunKernel, K::Limit, L::WallTime, Status::Unfinished},  // CPU time left: the machine's load
    {Stage::RunKernel, K::Limit, L::Memory, Status::ResourceError},
    {Stage::RunKernel, K::Limit, L::Output, Status::ResourceError},
    {Stage::RunKernel, K::Limit, L::Depth, Status::RuntimeError},
    {Stage::RunKernel, K::Limit, L::None, Status::InternalError},  // a limit without its kind is our bug
    {Stage::RunKernel, K::Internal, L::None, Status::InternalError},
    // The reference is the task's: its failures are not the kernel's, except running out of time.
    {Stage::Reference, K::Name, L::None, Status::InternalError},
    {Stage::Reference, K::Value, L::None, Status::InternalError},
    {Stage::Reference, K::Limit, L::Memory, Status::InternalError},
    {Stage::Reference, K::Limit, L::Time, Status::Timeout},
    {Stage::Reference, K::Limit, L::WallTime, Status::Unfinished},
    // The checker's verdicts.
    {Stage::Compare, K::Value, L::None, Status::Incorrect},
    {Stage::Guard, K::Value, L::None, Status::Incorrect},
    {Stage::Precision, K::Value, L::None, Status::LowerPrecision},
    // After the trace: a tile that can never fit is the kernel's; anything else is ours.
    {Stage::Lower, K::Rule, L::None, Status::ResourceError},
    {Stage::Lower, K::Internal, L::None, Status::InternalError},
    {Stage::Simulate, K::Rule, L::None, Status::ResourceError},
    {Stage::Simulate, K::Value, L::None, Status::InternalError},
    {Stage::Simulate, K::Limit, L::Time, Status::Timeout},
    {Stage::Internal, K::Value, L::None, Status::InternalError},
};

TEST(Classify, Table) {
  for (const Row& row : kTable) {
    SCOPED_TRACE(fmt::format("{} {} {}", eval::to_string(row.stage), nki::to_string(row.kind), nki::to_string(row.limit)));
    EXPECT_EQ(eval::to_string(eval::classify(row.stage, row.kind, row.limit)), std::string(eval::to_string(row.status)));
  }
}

TEST(Classify, StatusSpellingsAreStable) {
  // The agents, the search and the store read these words.
  const char* names[] = {"ok", "incorrect", "compile_error", "runtime_error", "timeout", "resource_error",
                         "lower_precision", "internal_error", "unfinished"};
  for (const char* name : names) {
    auto status = eval::parse_status(name);
    ASSERT_TRUE(status.has_value()) << name;
    EXPECT_STREQ(eval::to_string(*status), name);
  }
}

TEST(Classify, FailureRoundTripsThroughJson) {
  eval::Failure f{Stage::RunKernel, K::Limit, L::Steps, "k.py", 12, 5, "step limit of 100 exceeded"};
  eval::Failure back = eval::failure_from_json(eval::to_json(f));
  EXPECT_EQ(back.stage, f.stage);
  EXPECT_EQ(back.kind, f.kind);
  EXPECT_EQ(back.limit, f.limit);
  EXPECT_EQ(back.file, "k.py");
  EXPECT_EQ(back.line, 12u);
  EXPECT_EQ(back.col, 5u);
  EXPECT_EQ(back.message, f.message);
  eval::Evaluation e;
  e.status = eval::classify(f);
  e.failure = f;
  eval::Evaluation read = eval::evaluation_from_json(eval::to_json(e));
  ASSERT_TRUE(read.failure.has_value());
  EXPECT_EQ(read.status, eval::Status::Timeout);
  EXPECT_EQ(read.failure->limit, L::Steps);
}

TEST(Classify, WallClockBackstopRoundTripsAsUnfinished) {
  eval::Failure f{Stage::RunKernel, K::Limit, L::WallTime, "k.py", 3, 1, "wall-clock backstop of 8 seconds reached"};
  eval::Evaluation e;
  e.status = eval::classify(f);
  e.failure = f;
  eval::Evaluation read = eval::evaluation_from_json(eval::to_json(e));
  EXPECT_EQ(read.status, eval::Status::Unfinished);
  ASSERT_TRUE(read.failure.has_value());
  EXPECT_EQ(read.failure->limit, L::WallTime);
}

}  // namespace
