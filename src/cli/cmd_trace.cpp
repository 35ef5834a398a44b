// `accelopt trace`: the instruction trace of a kernel (trace-only run, shape-only inputs from the
// reference), one stable line per record.
#include <fmt/core.h>

#include "bench/profile_run.h"
#include "cli/command.h"
#include "nki/lib/kernel_runner.h"
#include "trn/trace.h"

namespace {

struct TraceOptions {
  std::string reference, kernel;
};

int run_trace(const TraceOptions& opt) {
  bench::TraceRequest req = bench::trace_request_from_files(opt.reference, opt.kernel);
  trn::TraceBuffer buffer;
  bench::TraceRun run = bench::trace_kernel(req, buffer);
  for (const auto& d : run.diagnostics) fmt::print(stderr, "{}\n", d);
  if (run.outcome != bench::Outcome::Ok) return 1;
  fmt::print("{}", nki::lib::format_trace(buffer.records));
  return 0;
}

cli::RunFn setup_trace(CLI::App& sub) {
  auto opt = std::make_shared<TraceOptions>();
  sub.add_option("--reference", opt->reference, "task reference (provides the input shapes)")->required();
  sub.add_option("--kernel", opt->kernel, "kernel file")->required();
  return [opt] { return run_trace(*opt); };
}

cli::CommandRegistrar reg("trace", "print the instruction trace of a kernel (no numerics)", setup_trace);

}  // namespace
