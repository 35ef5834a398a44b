// `optimize --resume` end to end with the built-in agent on the add task (issue 14, "Resume" and
// "Ctrl-C / SIGTERM lose work"): one process at a time in a run, a run store that is missing,
// empty or another run's is refused, options that define the run cannot change, and a run
// stopped (by its budget, or by Ctrl-C mid-round) then resumed ends exactly as the uninterrupted
// run: the same evaluations, the same best.
#include <fcntl.h>
#include <sys/file.h>

#include <map>
#include <set>

#include "optimize_e2e.h"
#include "store/run_store.h"

namespace {

using namespace optimize_e2e;

class OptimizeResume : public OptimizeE2E {
 protected:
  std::string builtin_args(const std::string& out, const std::string& extra = "", int rounds = 3) {
    return fmt::format("optimize --agent builtin --task add --bench-root {} --out {} --B 2 --N 3 --K 1 --T {} "
                       "--workers 1 --no-progress --seed 7 --check-seeds 0 {}",
                       (dir_ / "bench").string(), (dir_ / out).string(), rounds, extra);
  }
  std::string resume_args(const std::string& out, const std::string& extra = "") {
    return fmt::format("optimize --no-progress --resume {} {}", (dir_ / out).string(), extra);
  }

  // Every evaluation the run recorded: task, content key, status, latency. A kernel's first row is
  // the search's evaluation; a later row of the same text is a five-seed re-check of it, listed as
  // "recheck <the search's key>" in `rechecks` (when given) instead.
  std::set<std::string> evaluations(const std::string& out, std::set<std::string>* rechecks = nullptr) {
    store::RunStore store((dir_ / out / "run.db").string());
    std::set<std::string> found;
    std::map<std::string, std::string> first_key;  // text -> key of its search evaluation
    for (const auto& k : store.kernels(store.latest_run()->id)) {
      auto e = store.find_evaluation(k.id);
      if (!e) continue;
      EXPECT_EQ(e->diagnostics.find("cancelled"), std::string::npos) << "a cancelled evaluation was kept: " << e->diagnostics;
      auto [known, fresh] = first_key.emplace(k.text, k.hash);
      std::string what = fmt::format("{} {} {} {:.6f}", k.task, k.hash, e->status, e->latency_ms.value_or(-1));
      if (fresh || !rechecks) found.insert(what);
      else rechecks->insert(fmt::format("recheck {} {} {:.6f}", known->second, e->status, e->latency_ms.value_or(-1)));
    }
    return found;
  }

  void expect_same_best(const std::string& a, const std::string& b) {
    auto sa = summary(a), sb = summary(b);
    EXPECT_EQ(sa["status"], "finished");
    EXPECT_EQ(sb["status"], "finished");
    EXPECT_EQ(sa["tasks"][0]["best_latency_ms"], sb["tasks"][0]["best_latency_ms"]);
    EXPECT_EQ(sa["tasks"][0]["recheck"], sb["tasks"][0]["recheck"]);
    EXPECT_EQ(slurp(dir_ / a / "best/add_M256_N512_0.py"), slurp(dir_ / b / "best/add_M256_N512_0.py"));
  }

  void expect_same_outcome(const std::string& a, const std::string& b) {
    EXPECT_EQ(evaluations(a), evaluations(b));
    expect_same_best(a, b);
  }
};

TEST_F(OptimizeResume, ASecondProcessInTheRunIsRefusedNamingTheFirst) {
  Result first = run(builtin_args("run", "", 1));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // Another process holds the run (as a running `optimize` does, through RUN_DIR/lock).
  std::string lock_path = (dir_ / "run/lock").string();
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  std::string holder = "accelopt pid 4242 on somehost since 2026-12-01 21:00:00 UTC\n";
  ASSERT_EQ(::write(fd, holder.data(), holder.size()), static_cast<ssize_t>(holder.size()));
  Result second = run(resume_args("run"));
  ::close(fd);
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("is in use by accelopt pid 4242 on somehost"), std::string::npos) << second.output;
  // Released: the resume runs (the run is finished, so it only reports it).
  Result third = run(resume_args("run"));
  EXPECT_EQ(third.exit_code, 0) << third.output;
}

TEST_F(OptimizeResume, AMissingEmptyOrForeignRunStoreIsRefused) {
  ASSERT_EQ(run(builtin_args("a", "", 1)).exit_code, 0);
  ASSERT_EQ(run(builtin_args("b", "", 1)).exit_code, 0);
  fs::copy_file(dir_ / "a/run.db", dir_ / "a.db");

  fs::remove(dir_ / "a/run.db");
  Result missing = run(resume_args("a"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("run.db is missing"), std::string::npos) << missing.output;

  spit(dir_ / "a/run.db", "");
  Result empty = run(resume_args("a"));
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_NE(empty.output.find("run.db is empty"), std::string::npos) << empty.output;

  fs::copy_file(dir_ / "b/run.db", dir_ / "a/run.db", fs::copy_options::overwrite_existing);
  Result foreign = run(resume_args("a"));
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(foreign.output.find("belongs to another run"), std::string::npos) << foreign.output;

  // A run.db without a config.json is not adopted by a new run either.
  fs::create_directories(dir_ / "c");
  fs::copy_file(dir_ / "a.db", dir_ / "c/run.db");
  Result adopt = run(builtin_args("c", "", 1));
  EXPECT_EQ(adopt.exit_code, 2) << adopt.output;
  EXPECT_NE(adopt.output.find("already holds a run store"), std::string::npos) << adopt.output;

  fs::copy_file(dir_ / "a.db", dir_ / "a/run.db", fs::copy_options::overwrite_existing);
  EXPECT_EQ(run(resume_args("a")).exit_code, 0);  // its own store back: resumable
}

TEST_F(OptimizeResume, OptionsThatDefineTheRunMustMatchBesideResume) {
  ASSERT_EQ(run(builtin_args("run", "", 1)).exit_code, 0);
  Result other_task = run(resume_args("run", "--task silu"));
  EXPECT_EQ(other_task.exit_code, 2) << other_task.output;
  EXPECT_NE(other_task.output.find("--task 'silu' beside --resume"), std::string::npos) << other_task.output;
  EXPECT_NE(other_task.output.find("started with 'add'"), std::string::npos) << other_task.output;
  Result more_rounds = run(resume_args("run", "--T 5"));
  EXPECT_EQ(more_rounds.exit_code, 2) << more_rounds.output;
  EXPECT_NE(more_rounds.output.find("--T 5 beside --resume"), std::string::npos) << more_rounds.output;
  Result other_arch = run(resume_args("run", "--arch trn2"));
  EXPECT_EQ(other_arch.exit_code, 2) << other_arch.output;
  // The same values, and the options a resume may change, are accepted.
  Result same = run(resume_args("run", "--task add --T 1 --arch trn1 --workers 2 --budget-evals 100"));
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

// The built-in planner's record of the sites it planned is part of every checkpoint: a run that
// stops after a round and is resumed in a new process plans and evaluates what the uninterrupted
// run did. The only extra evaluation is the five-seed re-check of the best as it stood at the
// budget stop (a stopped run reports a re-checked best).
TEST_F(OptimizeResume, AStoppedThenResumedBuiltinRunEqualsTheUninterruptedOne) {
  Result whole = run(builtin_args("whole"));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  ASSERT_EQ(summary("whole")["tasks"][0]["rounds_done"], 3) << whole.output;
  // Baseline + round 1 (B=1 at the start: 3 kernels): stops before round 2.
  Result first = run(builtin_args("parts", "--budget-evals 4"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(summary("parts")["status"], "budget_stop") << first.output;
  std::set<std::string> stop_recheck;
  evaluations("parts", &stop_recheck);
  ASSERT_EQ(stop_recheck.size(), 1u) << "the best at the budget stop is re-checked once";
  Result rest = run(resume_args("parts", "--budget-evals 0"));
  ASSERT_EQ(rest.exit_code, 0) << rest.output;

  std::set<std::string> whole_rechecks, parts_rechecks;
  EXPECT_EQ(evaluations("whole", &whole_rechecks), evaluations("parts", &parts_rechecks));
  EXPECT_EQ(whole_rechecks.size(), 1u);
  whole_rechecks.insert(stop_recheck.begin(), stop_recheck.end());
  EXPECT_EQ(parts_rechecks, whole_rechecks);
  expect_same_best("whole", "parts");
}

// Ctrl-C mid-round: the stop message says how to resume, the evaluations in flight are not kept
// as failures, and the resumed run evaluates them and ends as the uninterrupted one. The round the
// interrupt cut is not kept: the resumed run plans it again from the planner's state before it.
TEST_F(OptimizeResume, CtrlCMidRunThenResumeEqualsTheUninterruptedRun) {
  Result whole = run(builtin_args("whole"));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;

  fs::path log = dir_ / "interrupted.txt";
  std::string cmd = fmt::format("exec {} {} > {} 2>&1", accelopt_binary(), builtin_args("cut"), log.string());
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Interrupt as soon as round 1 is done (polled every 20 ms): round 2 is being planned or its
  // evaluations are in flight, well before the run could end.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (slurp(log).find("round 1/3:") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(-pid, SIGINT);  // the terminal's Ctrl-C reaches the whole process group
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string output = slurp(log);
  ASSERT_NE(output.find("round 1/3:"), std::string::npos) << output;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status << "\n" << output;
  EXPECT_NE(output.find("a resume runs them again"), std::string::npos) << output;
  EXPECT_NE(output.find("Continue with: accelopt optimize --resume " + (dir_ / "cut").string()), std::string::npos)
      << output;

  Result rest = run(resume_args("cut"));
  ASSERT_EQ(rest.exit_code, 0) << rest.output;
  expect_same_outcome("whole", "cut");
}

}  // namespace
