// Subcommand registry of the `accelopt` binary. Each src/cli/cmd_<name>.cpp defines one
// subcommand and registers it at static-initialisation time:
//
//   static cli::CommandRegistrar reg("eval", "check and profile a kernel", setup_eval);
//
// `setup` adds options to the CLI11 subcommand and returns the function to run (exit code).
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cli {

using RunFn = std::function<int()>;
using SetupFn = std::function<RunFn(CLI::App& sub)>;

struct CommandSpec {
  std::string name, help;
  SetupFn setup;
};
std::vector<CommandSpec>& registry();

// A finite number > 0 ("nan", "inf" and "0" are refused): tolerances and time limits.
inline const CLI::Validator& finite_positive() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value <= 0)
          return "value must be a finite number greater than 0, got '" + text + "'";
        return {};
      },
      "FINITE>0");
  return v;
}

// `--entry NAME` on every command that runs a kernel file: which of its functions runs (a
// tutorial file holds several versions of a kernel). kEntryOption is how the error for a file
// with several kernels tells the user to choose.
inline constexpr const char* kEntryOption = "--entry NAME";
inline CLI::Option* add_entry_option(CLI::App& sub, std::string& entry) {
  return sub.add_option("--entry", entry,
                        "the function of the kernel file to run (default: 'kernel', else the file's one kernel)");
}

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string help, SetupFn setup) {
    registry().push_back({std::move(name), std::move(help), std::move(setup)});
  }
};

}  // namespace cli
