// The compiler stage between the instruction trace and the simulator (docs/simulator.md,
// "Compiler stage"). The trace records what the NKI source issues; the Neuron compiler changes
// what runs. This stage rewrites the record stream the way the compiler does, rule by rule,
// each rule with its public evidence in its own file:
//
//   psum_copies        PSUM->SBUF copies the compiler inserts (legalization)
//   psum_accumulation  SBUF accumulation of matmul results -> PSUM accumulation
//   hoist_loads        loads an affine_range loop repeats unchanged run once
//   loop_folding       loops of tiny instructions on adjacent slices -> one instruction
//   dma_coalescing     adjacent small transfers -> one transfer
//
//   lower::Lowering stage(simulator, lower::parse_rules("all"));
//   run_kernel_traced(..., stage);    // records arrive in program order; finish() flushes
//
// Streaming: rules hold back only bounded windows of records. Deterministic: the output
// depends on the records and the options only. Every rule but psum_copies is a middle-end
// transformation and is off under @nki.compiler.skip_middle_end_transformations (a Kernel
// record). Rewritten records carry the rules that changed them in Record::lowered_by.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lower/options.h"
#include "trn/trace.h"

namespace lower {

class Lowering : public trn::TraceSink {
 public:
  explicit Lowering(trn::TraceSink& next, const Options& options = {});
  ~Lowering() override;
  void consume(const trn::Record& record) override;
  void finish() override;
  // Per rule, in pipeline order (valid any time; complete after finish()).
  std::vector<std::pair<Rule, RuleStats>> stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Lowers a whole trace.
std::vector<trn::Record> lower_trace(const std::vector<trn::Record>& records, const Options& options = {});

// The record in the trace_text form, followed by "  # rule, rule" naming the rules that
// created or changed it.
std::string format_lowered(const trn::Record& record);

}  // namespace lower
