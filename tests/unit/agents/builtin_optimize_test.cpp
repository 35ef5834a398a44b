// End to end: `accelopt optimize --agent builtin` improves a small bundled task (a 256 x 2048 silu
// in tests/golden/rewrite/bench/) within a small budget, and the best kernel it reports passes
// the check again from a clean process (`accelopt eval`).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

int run(const std::string& command) { return std::system((command + " > /dev/null 2>&1").c_str()); }

TEST(BuiltinOptimize, ImprovesASmallTaskEndToEnd) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_builtin_e2e_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string bench = std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/rewrite/bench";
  std::string cmd = std::string(ACCELOPT_BINARY) + " optimize --task silu --agent builtin --bench-root " + bench +
                    " --T 3 --B 1 --N 4 --K 1 --seed 1 --workers 1 --no-progress --out " + dir.string() +
                    " --memory-out " + (dir / "memory.json").string();
  ASSERT_EQ(run(cmd), 0) << cmd;
  auto summary = nlohmann::json::parse(builtin_test::read((dir / "summary.json").string()));
  ASSERT_EQ(summary["tasks"].size(), 1u);
  const auto& task = summary["tasks"][0];
  EXPECT_GT(task.value("speedup", 0.0), 1.2) << task.dump();
  // Memory items from the built-in summarizer carry the transformation.
  auto memory = nlohmann::json::parse(builtin_test::read((dir / "memory.json").string()));
  ASSERT_FALSE(memory["items"].empty());
  EXPECT_NE(memory["items"][0]["lesson"].get<std::string>().find("builtin: transform="), std::string::npos);
  // The built-in agent records every outcome by default (neutral rewrites are memory too).
  auto config = nlohmann::json::parse(builtin_test::read((dir / "config.json").string()));
  EXPECT_EQ(config["params"]["t_pos"], 1.0) << config.dump();
  EXPECT_EQ(config["params"]["t_neg"], 1.0);
  EXPECT_EQ(config["params"]["expn"], 128);
  // The reported best kernel passes the five-seed check again from a clean process.
  std::string best = (dir / "best" / "silu_M256_N2048_0.py").string();
  ASSERT_TRUE(fs::exists(best));
  std::string eval = std::string(ACCELOPT_BINARY) + " eval --reference " + bench +
                     "/reference/silu_M256_N2048.py --no-cache --kernel " + best;
  EXPECT_EQ(run(eval), 0) << eval;
  fs::remove_all(dir);
}

}  // namespace
