// `accelopt memory show FILE`: prints the items of an optimization-memory file, newest first
// (format in docs/optimize.md).
#include <fmt/core.h>

#include "agents/memory.h"
#include "cli/command.h"

namespace {

int show_memory(const std::string& path, bool with_code) {
  // Loading with a huge capacity shows every item the file holds.
  agents::Memory memory = agents::load_memory(path, static_cast<size_t>(1) << 30);
  fmt::print("{}: {} items (newest first)\n", path, memory.size());
  int index = 1;
  for (const auto& item : memory.items()) {
    fmt::print("\n{}. [{} {:.3f}x] task {} round {}: {}\n", index++, item.positive ? "positive" : "negative", item.speedup,
               item.task.empty() ? "-" : item.task, item.round, item.plan);
    fmt::print("   key change: {}\n   lesson: {}\n", item.key_change, item.lesson);
    if (with_code) fmt::print("   slow code:\n{}\n   fast code:\n{}\n", item.slow_code, item.fast_code);
  }
  return 0;
}

cli::RunFn setup(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto with_code = std::make_shared<bool>(false);
  sub.require_subcommand(1);
  CLI::App* show = sub.add_subcommand("show", "print the items of a memory file");
  show->add_option("file", *path, "memory file (memory.json of a run, or --memory-out)")->required();
  show->add_flag("--code", *with_code, "also print each item's slow and fast kernels");
  return [path, with_code] { return show_memory(*path, *with_code); };
}

cli::CommandRegistrar reg("memory", "inspect optimization-memory files", setup);

}  // namespace
