// `accelopt run FILE`: executes a Python file with numpy, math and nki importable, prints what it
// printed, and renders the diagnostic (exit code 1) if it fails.
#include <fmt/core.h>

#include "cli/command.h"
#include "cli/read_source.h"
#include "nki/interpreter.h"
#include "nki/lib/modules.h"

namespace {

struct RunOptions {
  std::string file;
  nki::Limits limits;
};

int run_file(const RunOptions& o) {
  auto text = cli::read_source_file(o.file, o.limits.max_source_bytes);
  if (!text) return 1;
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{o.file, *text});
  nki::Interpreter interp(o.limits);
  nki::lib::install_builtin_modules(interp);
  int status = 0;
  try {
    interp.load_module(src, "__main__");
  } catch (const nki::NkiError& e) {
    fmt::print("{}", interp.output());
    std::fflush(stdout);
    fmt::print(stderr, "{}", nki::render(e.diag));
    return 1;
  }
  fmt::print("{}", interp.output());
  return status;
}

cli::RunFn setup_run(CLI::App& sub) {
  auto o = std::make_shared<RunOptions>();
  o->limits.max_steps = 100'000'000;
  o->limits.max_seconds = 60;
  o->limits.max_bytes = 4ull << 30;
  sub.add_option("file", o->file, "Python file to execute")->required();
  sub.add_option("--max-steps", o->limits.max_steps, "interpreter step limit")->capture_default_str();
  sub.add_option("--max-seconds", o->limits.max_seconds, "wall-time limit in seconds")->capture_default_str();
  sub.add_option("--max-bytes", o->limits.max_bytes, "limit on bytes of live arrays and containers")->capture_default_str();
  sub.add_option("--max-depth", o->limits.max_depth, "recursion limit")->capture_default_str();
  sub.add_option("--max-source-bytes", o->limits.max_source_bytes, "limit on the size of the file")->capture_default_str();
  return [o] { return run_file(*o); };
}

cli::CommandRegistrar reg("run", "execute a Python file with the NKI interpreter", setup_run);

}  // namespace
