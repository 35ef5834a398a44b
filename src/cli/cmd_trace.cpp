// `accelopt trace`: the instruction trace of a kernel (trace-only run, shape-only inputs from the
// reference), one stable line per record in the trace_text form (trn/trace_text.h), which
// parses back to the same records. `--stage lowered` prints what the simulator sees:
// the records after the compiler stage (src/lower) in the trace_text form, each rewritten
// record followed by "# rule" naming the rules that changed it, and per rule what it did.
// An instruction whose engine the kernel left to the compiler says where the simulator runs it
// (an outside author read `dve` on a PSUM evacuation the timeline showed on `act`).
#include <fmt/core.h>

#include "eval/profile_run.h"
#include "cli/command.h"
#include "lower/lowering.h"
#include "trn/cost_model.h"
#include "trn/trace.h"
#include "trn/trace_text.h"

namespace {

struct TraceOptions {
  std::string reference, kernel, entry, stage = "source", lower = "all";
};

// "  # ..." after an instruction left to the compiler (docs/simulator.md, Engine choice): the record
// names the engine its call defaults to; a PSUM evacuation runs on ScalarE, and the other
// tensor_scalar / tensor_copy go to VectorE or ScalarE by the work each has when scheduled.
std::string engine_note(const trn::Record& r) {
  if (r.kind != trn::RecordKind::Instruction) return "";
  if (trn::Engine placed = trn::placed_engine(r.inst); placed != r.inst.engine)
    return fmt::format("  # runs on {}: a PSUM evacuation left to the compiler", trn::to_string(placed));
  if (trn::engine_is_flexible(r.inst)) return "  # engine left to the compiler: dve or act, balanced when scheduled";
  return "";
}

int run_trace(const TraceOptions& opt) {
  const lower::Options rules = lower::parse_rules(opt.lower);
  eval::TraceRequest req = eval::trace_request_from_files(opt.reference, opt.kernel);
  req.entry = {opt.entry, cli::kEntryOption};
  trn::TraceBuffer buffer;
  lower::Lowering lowering(buffer, rules);
  const bool lowered = opt.stage == "lowered";
  eval::TraceRun run = lowered ? eval::trace_kernel(req, lowering) : eval::trace_kernel(req, buffer);
  for (const auto& d : run.diagnostics) fmt::print(stderr, "{}\n", d);
  if (run.status != eval::Status::Ok) return 1;
  for (const auto& r : buffer.records)
    fmt::print("{}{}\n", lowered ? lower::format_lowered(r) : trn::format_record(r), engine_note(r));
  if (!lowered) return 0;
  fmt::print("# lowering: {}\n", lower::rules_spec(rules));
  for (const auto& [rule, s] : lowering.stats())
    if (rules.on(rule)) fmt::print("# {}: {} records created or rewritten, {} removed\n", lower::to_string(rule), s.changed, s.removed);
  return 0;
}

cli::RunFn setup_trace(CLI::App& sub) {
  auto opt = std::make_shared<TraceOptions>();
  sub.add_option("--reference", opt->reference, "task reference (provides the input shapes)")->required();
  sub.add_option("--kernel", opt->kernel, "kernel file")->required();
  cli::add_entry_option(sub, opt->entry);
  sub.add_option("--stage", opt->stage, "source: the trace as the kernel issues it; lowered: after the compiler stage")
      ->check(CLI::IsMember({"source", "lowered"}));
  sub.add_option("--lower", opt->lower,
                 "compiler-stage rules for --stage lowered: all, none, or a list (psum_copies, psum_accumulation, "
                 "hoist_loads, loop_folding, dma_coalescing)");
  return [opt] { return run_trace(*opt); };
}

cli::CommandRegistrar reg("trace", "print the instruction trace of a kernel (no numerics)", setup_trace);

}  // namespace
