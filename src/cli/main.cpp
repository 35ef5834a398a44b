// accelopt: optimizes NKI kernels for AWS Trainium (see README.md).
#include <algorithm>
#include <exception>
#include <map>

#include <fmt/core.h>

#include "cli/command.h"

namespace cli {
std::vector<CommandSpec>& registry() {
  static std::vector<CommandSpec> commands;
  return commands;
}
}  // namespace cli

int main(int argc, char** argv) {
  CLI::App app{"accelopt: a self-improving agentic optimizer for AWS Trainium NKI kernels"};
  app.require_subcommand(1);
  auto& commands = cli::registry();
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::map<CLI::App*, cli::RunFn> runs;
  for (auto& spec : commands) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    runs[sub] = spec.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every bad option or value is a usage error: exit 2 (CLI11's
    // own codes, 104-109, are not the documented ones).
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (auto& [sub, run] : runs) {
    if (sub->parsed()) {
      try {
        return run();
      } catch (const std::exception& e) {
        fmt::print(stderr, "accelopt: error: {}\n", e.what());
        return 2;
      }
    }
  }
  return 2;
}
