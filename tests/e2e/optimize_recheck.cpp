// End to end: `accelopt optimize --check-seeds` checks candidates with fewer seeds during the
// search, and the reported best is re-checked with all five seeds in a fresh worker at the end
// of the task. The scripted "model" proposes a shortcut (out = x, ignoring y) that is right only
// on seed 0's data, where the task's reference draws y = 0: with --check-seeds 0 the shortcut
// wins the search, fails the re-check, and the run reports the best kernel that passes.
#include "optimize_e2e.h"
#include "support/test_paths.h"

namespace {

using namespace optimize_e2e;

// The add reference, except that seed 0's inputs have y = 0 (decided by x's first value, which is
// 1.76 for seed 0 and below 1 for seeds 21, 42, 63 and 84).
std::string seeded_reference() {
  std::string ref = add_reference();
  std::string draw = "    y = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)\n";
  size_t at = ref.find(draw);
  if (at == std::string::npos) return "";
  return ref.insert(at + draw.size(), "    if x[0, 0] > 1.0:\n        y = np.zeros((M, N), dtype=np.float32)\n");
}

// Copies x to the output: less DMA than the add (no y loads), so faster, and right iff y == 0.
std::string shortcut_kernel() {
  return std::string(kHeader) + R"(    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // 512):
            x_tile = nl.load(x[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512])
            nl.store(out[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512], value=x_tile)
    return out
)";
}

std::string shortcut_script() {
  std::string plans = R"([{"title": "wider tiles", "plan": "MARK_FAST load whole rows"},
                          {"title": "skip y", "plan": "MARK_SHORTCUT y looks like zeros"}])";
  std::string summary = R"({"key_change": "changed the DMA size", "lesson": "move large blocks per DMA"})";
  std::string out = "rules:\n";
  auto rule = [&](const std::string& contains, const std::string& text) {
    out += fmt::format("  - contains: {}\n    replies:\n      - {{text: {}}}\n", yaml_quote(contains), yaml_quote(text));
  };
  rule("Explain what made the difference", summary);
  rule("different optimization plans", plans);
  rule("MARK_FAST", fenced(add_kernel(512)));
  rule("MARK_SHORTCUT", fenced(shortcut_kernel()));
  return out;
}

class OptimizeRecheck : public OptimizeE2E {
 protected:
  void write_seeded_bench() {
    std::string ref = seeded_reference();
    ASSERT_FALSE(ref.empty()) << "examples/add/reference.py changed: update seeded_reference()";
    fs::copy_file(dir_ / "bench/summary.json", dir_ / "seeded/summary.json", fs::copy_options::overwrite_existing);
    spit(dir_ / "seeded/reference/add_M256_N512.py", ref);
    spit(dir_ / "seeded/kernels/add_M256_N512_0.py", add_kernel(128));
    spit(dir_ / "shortcut.py", shortcut_kernel());
  }
  std::string seeded_args(const std::string& out, const std::string& extra) {
    std::string args = optimize_args(out, extra + " --T 1 --N 2 --fixer-attempts 0");
    for (const char* flag : {"--N 4 ", "--T 2 ", "--fixer-attempts 1 "}) args.erase(args.find(flag), std::string(flag).size());
    args.replace(args.find("/bench "), 7, "/seeded ");
    return args;
  }
  Result eval_shortcut(const std::string& seeds) {
    return run(fmt::format("eval --no-cache --reference {} --kernel {} --seeds {}",
                           (dir_ / "seeded/reference/add_M256_N512.py").string(), (dir_ / "shortcut.py").string(), seeds));
  }
};

TEST_F(OptimizeRecheck, ShortcutThatPassesSeedZeroOnlyIsCaughtAndTheRunFallsBack) {
  fs::create_directories(dir_ / "seeded");
  write_seeded_bench();
  // The premise: the shortcut passes seed 0 and fails the five seeds.
  EXPECT_NE(eval_shortcut("0").output.find("status: ok"), std::string::npos) << eval_shortcut("0").output;
  Result five = eval_shortcut("0,21,42,63,84");
  ASSERT_EQ(five.output.find("status: ok"), std::string::npos) << five.output;

  start_server(shortcut_script());
  Result r = run(seeded_args("run", "--check-seeds 0"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto task = summary("run")["tasks"][0];
  EXPECT_EQ(task["recheck"], "fallback") << task.dump(2);
  EXPECT_EQ(task["recheck_evaluations"].get<int>(), 2);  // the shortcut, then the add that passed
  EXPECT_LT(task["searched_best_latency_ms"].get<double>(), task["best_latency_ms"].get<double>());
  EXPECT_NE(task["recheck_note"].get<std::string>().find("incorrect"), std::string::npos) << task.dump(2);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
  EXPECT_NE(r.output.find("failed the five-seed re-check"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fallback"), std::string::npos) << r.output;  // the table's column
  // The reported kernel passes the five seeds from yet another clean process.
  Result again = run(fmt::format("eval --no-cache --reference {} --kernel {}", (dir_ / "seeded/reference/add_M256_N512.py").string(),
                                 (dir_ / "run/best/add_M256_N512_0.py").string()));
  EXPECT_NE(again.output.find("status: ok"), std::string::npos) << again.output;
  // config.json keeps the search seeds for --resume.
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "run/config.json"))["check_seeds"], "0");
}

TEST_F(OptimizeRecheck, WithTheFiveSeedsTheSearchRejectsTheShortcutAndTheBestPasses) {
  fs::create_directories(dir_ / "seeded");
  write_seeded_bench();
  start_server(shortcut_script());
  Result r = run(seeded_args("run", ""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto task = summary("run")["tasks"][0];
  EXPECT_EQ(task["recheck"], "passed") << task.dump(2);
  EXPECT_EQ(task["recheck_evaluations"].get<int>(), 1);
  EXPECT_EQ(task["rounds"][0]["eval_failed"].get<int>(), 1);  // the shortcut
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
}

// Defect 7 of issue 12: with the search's seeds equal to the re-check's (the default), the
// re-check's executor job used to have the search-time job's key, so the executor answered it
// from the search's result file and no worker ran. It must be a job of its own, run by a worker.
TEST_F(OptimizeRecheck, RecheckWithTheSearchSeedsRunsAJobOfItsOwnInAWorker) {
  fs::create_directories(dir_ / "seeded");
  write_seeded_bench();
  start_server(shortcut_script());
  Result r = run(seeded_args("run", ""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(summary("run")["tasks"][0]["recheck"], "passed");
  std::string best = add_kernel(512);
  int search_jobs = 0, recheck_jobs = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "run/eval/jobs")) {
    auto job = nlohmann::json::parse(slurp(entry.path()));
    if (job["kernel_text"] != best) continue;
    std::string key = job["key"];
    bool tagged = job.value("key_tag", "") == "recheck";
    (tagged ? recheck_jobs : search_jobs)++;
    // Each ran in a worker: its result says so, and the worker left a log.
    auto result = nlohmann::json::parse(slurp(dir_ / "run/eval/results" / (key + ".json")));
    EXPECT_EQ(result["origin"], "worker") << key;
    EXPECT_TRUE(fs::exists(dir_ / "run/eval/logs" / (key + ".1.log"))) << key;
  }
  EXPECT_EQ(search_jobs, 1);
  EXPECT_EQ(recheck_jobs, 1);
}

TEST(OptimizeRecheckBuiltin, SmallSiluWithSeedZeroChecksIsRecheckedAndPasses) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_recheck_e2e_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string bench = std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/rewrite/bench";
  std::string cmd = fmt::format("{} optimize --task silu --agent builtin --bench-root {} --T 2 --B 1 --N 3 --K 1 --seed 1 "
                                "--workers 1 --no-progress --check-seeds 0 --out {} > {} 2>&1",
                                ACCELOPT_BINARY, bench, (dir / "run").string(), (dir / "log.txt").string());
  fs::create_directories(dir);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "log.txt");
  auto task = nlohmann::json::parse(slurp(dir / "run/summary.json"))["tasks"][0];
  EXPECT_GT(task["speedup"].get<double>(), 1.0);
  EXPECT_EQ(task["recheck"], "passed") << task.dump(2);
  EXPECT_EQ(task["recheck_evaluations"].get<int>(), 1);
  EXPECT_NE(slurp(dir / "log.txt").find("passed"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
