#include "eval/slurm_client.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace eval {
namespace {

TEST(ParseSqueue, ReadsArrayTasksAndSkipsOthers) {
  auto states = parse_squeue("12|0|COMPLETED\n12|1|RUNNING\n\n13|N/A|PENDING\ngarbage\n12|7|CANCELLED\n");
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(states[0].array_id, "12");
  EXPECT_EQ(states[1].index, 1);
  EXPECT_EQ(states[1].state, "RUNNING");
  EXPECT_EQ(states[2].index, 7);
}

TEST(SlurmState, ActiveVersusEnded) {
  for (const char* s : {"PENDING", "RUNNING", "COMPLETING", "REQUEUED"}) EXPECT_TRUE(slurm_state_active(s)) << s;
  for (const char* s : {"COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL", "CANCELLED", "OUT_OF_MEMORY"})
    EXPECT_FALSE(slurm_state_active(s)) << s;
}

TEST(SbatchArgv, ArrayThrottleAndSettings) {
  SbatchOptions o;
  o.job_name = "j";
  o.output_pattern = "/r/%a.out";
  o.script = "/r/b.sh";
  o.array_size = 5;
  o.max_concurrent = 2;
  o.cpus_per_task = 4;
  o.time_limit_minutes = 7;
  o.partition = "trn";
  o.account = "acct";
  o.extra_args = " --qos=high  --exclusive ";
  auto argv = SlurmClient().sbatch_argv(o);
  auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
  EXPECT_EQ(argv.front(), "sbatch");
  EXPECT_TRUE(has("--parsable"));
  EXPECT_TRUE(has("--array=0-4%2"));
  EXPECT_TRUE(has("--cpus-per-task=4"));
  EXPECT_TRUE(has("--time=7"));
  EXPECT_TRUE(has("--partition=trn"));
  EXPECT_TRUE(has("--account=acct"));
  EXPECT_TRUE(has("--qos=high"));
  EXPECT_TRUE(has("--exclusive"));
  EXPECT_EQ(argv.back(), "/r/b.sh");
  o.max_concurrent = 0;
  o.partition.clear();
  argv = SlurmClient().sbatch_argv(o);
  EXPECT_TRUE(has("--array=0-4"));
  EXPECT_FALSE(std::any_of(argv.begin(), argv.end(), [](auto& a) { return a.rfind("--partition", 0) == 0; }));
}

}  // namespace
}  // namespace eval
