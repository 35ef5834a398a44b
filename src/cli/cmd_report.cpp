// `accelopt report RUN_DIR [RUN_DIR ...] [--out FILE.html]`: a run as one self-contained page of
// figures (default RUN_DIR/report.html), or several runs compared on the same axes
// (docs/report.md).
#include <filesystem>

#include <fmt/core.h>

#include "cli/command.h"
#include "report/live_report.h"
#include "report/page.h"
#include "report/run_data.h"

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::vector<std::string> runs;
  std::string out;
  bool no_timeline = false;
};

int run_report(const ReportOptions& o) {
  for (const auto& dir : o.runs)
    if (!fs::is_directory(dir)) throw std::invalid_argument(fmt::format("{}: no such run directory", dir));
  if (o.runs.size() == 1) {
    std::string out = o.out.empty() ? (fs::path(o.runs[0]) / "report.html").string() : o.out;
    report::write_run_report(o.runs[0], out, !o.no_timeline);
    fmt::print("{}\n", out);
    return 0;
  }
  std::string out = o.out.empty() ? "compare.html" : o.out;
  nlohmann::json data = report::load_compare_data(o.runs);
  report::write_page(out, report::render_page(data, fmt::format("accelopt: {} runs compared", o.runs.size())));
  fmt::print("{}\n", out);
  return 0;
}

cli::RunFn setup(CLI::App& sub) {
  auto o = std::make_shared<ReportOptions>();
  sub.add_option("runs", o->runs, "run directories (one: its report; several: a comparison)")->required();
  sub.add_option("--out", o->out, "the page to write (default RUN_DIR/report.html, or compare.html for several runs)");
  sub.add_flag("--no-timeline", o->no_timeline, "do not simulate the best kernels again for their engine timelines");
  return [o] { return run_report(*o); };
}

cli::CommandRegistrar reg("report", "draw a run (or compare runs) as a self-contained HTML page", setup);

}  // namespace
