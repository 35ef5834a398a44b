// `accelopt runs [--root DIR]`: lists the optimize runs under a directory (default ./runs):
// name, status, tasks, best speedups and cost, newest last.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"

namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, false);
}

// One line per run; a run without summary.json is running or was killed (resumable).
std::string describe(const fs::path& dir) {
  auto config = read_json(dir / "config.json");
  std::string tasks = config.is_discarded() ? "?" : config.value("tasks", "?");
  if (!fs::exists(dir / "summary.json"))
    return fmt::format("{:<32} {:<12} {:<30} (no summary: running or killed; --resume to continue)", dir.filename().string(),
                       "incomplete", tasks);
  auto summary = read_json(dir / "summary.json");
  if (summary.is_discarded()) return fmt::format("{:<32} {:<12} {}", dir.filename().string(), "damaged", tasks);
  std::string speedups;
  for (const auto& t : summary.value("tasks", nlohmann::json::array()))
    speedups += fmt::format("{}{}={:.2f}x", speedups.empty() ? "" : " ", t.value("task", "?"), t.value("speedup", 0.0));
  double usd = summary.value("usage", nlohmann::json::object()).value("cost_usd", 0.0);
  return fmt::format("{:<32} {:<12} {:<30} {:>9.4f} USD  {}", dir.filename().string(), summary.value("status", "?"), tasks,
                     usd, speedups);
}

int list_runs(const std::string& root) {
  if (!fs::is_directory(root)) {
    fmt::print("no runs (no directory {})\n", root);
    return 0;
  }
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && fs::exists(entry.path() / "config.json")) runs.push_back(entry.path());
  std::sort(runs.begin(), runs.end());
  if (runs.empty()) fmt::print("no runs in {}\n", root);
  for (const auto& run : runs) fmt::print("{}\n", describe(run));
  return 0;
}

cli::RunFn setup(CLI::App& sub) {
  auto root = std::make_shared<std::string>("runs");
  sub.add_option("--root", *root, "directory holding run directories")->capture_default_str();
  return [root] { return list_runs(*root); };
}

cli::CommandRegistrar reg("runs", "list optimize runs", setup);

}  // namespace
