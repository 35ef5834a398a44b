// `accelopt optimize --agent builtin` on a task whose baseline is already at its memory floor (a
// 2048 x 2048 elementwise add that reads each input once and moves its 48 MiB at the DMA engines'
// aggregate rate): the planner proposes nothing, and the run says why, with the figures, in the
// round line, in the task's end line, in the run summary and in summary.json, instead of a round
// that "planned 0" and a task that stopped for "rounds". The task ends after that round; the run
// does not stop (a bound ends a task, not the run).
#include "optimize_e2e.h"

#include "store/run_store.h"

namespace {

using namespace optimize_e2e;

class OptimizeStops : public OptimizeE2E {
 protected:
  // The add task at 2048 x 2048, its kernel with 512-column tiles.
  void write_floor_bench() {
    std::string ref = add_reference();
    for (auto [from, to] : {std::pair{"M = 256\n", "M = 2048\n"}, std::pair{"N = 512\n", "N = 2048\n"}}) {
      size_t at = ref.find(from);
      ASSERT_NE(at, std::string::npos) << "examples/add/reference.py changed: update write_floor_bench()";
      ref.replace(at, std::string(from).size(), to);
    }
    nlohmann::json summary = {{"add", {{"seed", ""}, {"cases", {{"M2048_N2048", {{"values", {{"M", 2048}, {"N", 2048}}},
                              {"impls", {{{"task", "./reference/add_M2048_N2048.py"}, {"kernel", "./kernels/add_M2048_N2048_0.py"}}}}}}}}}}};
    spit(dir_ / "floor/summary.json", summary.dump(2));
    spit(dir_ / "floor/reference/add_M2048_N2048.py", ref);
    spit(dir_ / "floor/kernels/add_M2048_N2048_0.py", add_kernel(512));
  }
};

TEST_F(OptimizeStops, AKernelAtItsMemoryFloorEndsTheTaskWithTheReason) {
  write_floor_bench();
  Result r = run(fmt::format("optimize --agent builtin --task add --bench-root {} --out {} --B 2 --N 3 --K 1 --T 3 "
                             "--workers 1 --no-progress --seed 1 --check-seeds 0",
                             (dir_ / "floor").string(), (dir_ / "run").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The round line and the task's end line say which bound, with the figures.
  EXPECT_NE(r.output.find("round 1/3: planned 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; stop: at DMA floor: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("done after 1 round (at DMA floor: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("B/ns"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("round 2/3"), std::string::npos) << "the task went on after its bound:\n" << r.output;
  // The run summary printed at the end, and summary.json.
  EXPECT_NE(r.output.find("add_M2048_N2048: stopped after round 1: at DMA floor: "), std::string::npos) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "finished");
  auto task = s["tasks"][0];
  EXPECT_EQ(task["stop"], "at_dma_floor") << task.dump(2);
  EXPECT_EQ(task["rounds_done"], 1);
  EXPECT_EQ(task["evaluations"], 1);  // the baseline only
  EXPECT_EQ(task["recheck"], "passed");
  std::string message = task["stop_message"];
  EXPECT_EQ(message.rfind("at DMA floor: ", 0), 0u) << message;
  EXPECT_EQ(task["rounds"][0]["stop"], "at_dma_floor");
  EXPECT_EQ(task["rounds"][0]["stop_message"], message);
  // The store's last checkpoint carries it too (a resumed run reads it from there).
  store::RunStore store((dir_ / "run/run.db").string());
  auto checkpoint = store.last_checkpoint(store.latest_run()->id);
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_NE(checkpoint->state_json.find("\"at_dma_floor\""), std::string::npos);
}

}  // namespace
