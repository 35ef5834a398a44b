// One rule of the lowering pipeline: a TraceSink that rewrites the records it consumes and
// passes them to the next stage. Rules that need to see ahead hold records back, always in
// bounded buffers, and emit everything before finish().
#pragma once

#include <array>
#include <cstdint>

#include "lower/options.h"
#include "trn/trace.h"

namespace lower {

// What the rules of one pipeline share.
struct Shared {
  explicit Shared(const Options& o) : options(o) {}
  Options options;
  // Tensors the compiler creates (PSUM tiles, SBUF copies) get ids no kernel uses.
  uint32_t next_tensor_id = 0x80000000u;
  std::array<RuleStats, kRuleCount> stats{};
};

class Stage : public trn::TraceSink {
 public:
  Stage(Rule rule, bool middle_end, trn::TraceSink& next, Shared& shared)
      : rule_(rule), middle_end_(middle_end), next_(next), shared_(shared) {}

  void consume(const trn::Record& record) final;
  void finish() final;

 protected:
  // A record in program order (Kernel records are handled by the base).
  virtual void on_record(const trn::Record& record) = 0;
  // Emits everything held back.
  virtual void flush() {}

  void emit(const trn::Record& record) { next_.consume(record); }
  // Emits a record this rule created or rewrote (marks it and counts it).
  void emit_changed(trn::Record record);
  void mark(trn::Record& record);
  void count_removed(uint64_t n = 1) { shared_.stats[size_t(rule_)].removed += n; }
  uint32_t new_tensor_id() { return shared_.next_tensor_id++; }
  const Options& options() const { return shared_.options; }

 private:
  Rule rule_;
  bool middle_end_;  // off under @nki.compiler.skip_middle_end_transformations
  bool skipped_ = false;
  trn::TraceSink& next_;
  Shared& shared_;
};

}  // namespace lower
