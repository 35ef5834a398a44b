// The pipeline: the rules in the order the records flow through them. Legalization first (the
// identity a Tensor Engine transpose multiplies by, the copies a PSUM operand needs), then the PSUM accumulation that rewrites those copies' adds,
// then the loop-level rules, then DMA merging of what folding left.
#include "lower/lowering.h"

#include "lower/rules.h"
#include "trn/trace_text.h"

namespace lower {

namespace {

using Factory = std::unique_ptr<Stage> (*)(trn::TraceSink&, Shared&);

struct PipelineRule {
  Rule rule;
  Factory make;
};

constexpr PipelineRule kPipeline[] = {
    {Rule::TransposeIdentity, make_transpose_identity},
    {Rule::PsumCopies, make_psum_copies},
    {Rule::PsumAccumulation, make_psum_accumulation},
    {Rule::HoistLoads, make_hoist_loads},
    {Rule::LoopFolding, make_loop_folding},
    {Rule::DmaCoalescing, make_dma_coalescing},
};

}  // namespace

struct Lowering::Impl {
  Impl(trn::TraceSink& next, const Options& options) : shared(options), head(&next) {
    // Built back to front: each stage feeds the one after it.
    for (auto it = std::rbegin(kPipeline); it != std::rend(kPipeline); ++it) {
      if (!options.on(it->rule)) continue;
      stages.push_back(it->make(*head, shared));
      head = stages.back().get();
    }
  }
  Shared shared;
  std::vector<std::unique_ptr<Stage>> stages;
  trn::TraceSink* head;
};

Lowering::Lowering(trn::TraceSink& next, const Options& options) : impl_(std::make_unique<Impl>(next, options)) {}
Lowering::~Lowering() = default;

void Lowering::consume(const trn::Record& record) { impl_->head->consume(record); }
void Lowering::finish() { impl_->head->finish(); }

std::vector<std::pair<Rule, RuleStats>> Lowering::stats() const {
  std::vector<std::pair<Rule, RuleStats>> out;
  for (const auto& p : kPipeline) {
    out.push_back({p.rule, impl_->shared.stats[size_t(p.rule)]});
  }
  return out;
}

std::vector<trn::Record> lower_trace(const std::vector<trn::Record>& records, const Options& options) {
  trn::TraceBuffer out;
  Lowering stage(out, options);
  for (const auto& r : records) stage.consume(r);
  stage.finish();
  return std::move(out.records);
}

std::string format_lowered(const trn::Record& record) {
  std::string line = trn::format_record(record);
  if (!record.lowered_by) return line;
  line += "  #";
  const char* sep = " ";
  for (const auto& p : kPipeline)
    if (record.lowered_by & rule_bit(p.rule)) {
      line += sep;
      line += to_string(p.rule);
      sep = ", ";
    }
  return line;
}

}  // namespace lower
