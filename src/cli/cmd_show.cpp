// `accelopt show RUN_DIR`: reprints the summary of a run. A run that is still going or was
// killed has no summary.json yet; its last checkpoint in the store is summarized instead.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "search/run_output.h"
#include "search/search_state.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;

nlohmann::json summary_of(const std::string& run_dir) {
  fs::path summary = fs::path(run_dir) / "summary.json";
  if (fs::exists(summary)) {
    std::ifstream in(summary);
    std::stringstream text;
    text << in.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded()) throw std::runtime_error(fmt::format("{}: invalid JSON", summary.string()));
    return j;
  }
  fs::path db = fs::path(run_dir) / "run.db";
  if (!fs::exists(db)) throw std::invalid_argument(fmt::format("{}: not a run directory (no summary.json or run.db)", run_dir));
  store::RunStore store(db.string());
  auto run = store.latest_run();
  if (!run) throw std::runtime_error(fmt::format("{}: the store holds no run", db.string()));
  std::string name = fs::path(run_dir).filename().string();
  if (auto last = store.last_checkpoint(run->id)) {
    auto state = search::deserialize_state(last->state_json, 1 << 20);
    auto j = search::run_summary(state, name);
    j["status"] = run->status;
    return j;
  }
  return {{"run", name}, {"status", run->status}, {"tasks", nlohmann::json::array()}};
}

cli::RunFn setup(CLI::App& sub) {
  auto run_dir = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("run_dir", *run_dir, "the run directory")->required();
  sub.add_flag("--json", *json, "print the summary document");
  return [run_dir, json] {
    auto summary = summary_of(*run_dir);
    if (*json)
      fmt::print("{}\n", summary.dump(2));
    else
      fmt::print("{}", search::format_summary(summary));
    return 0;
  };
}

cli::CommandRegistrar reg("show", "print the summary of an optimize run", setup);

}  // namespace
