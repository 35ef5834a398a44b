// Which lowering rules run, and the limits they respect. Every rule can be switched off for
// ablations (`--lower none|all|rule,rule`); the limits are hardware facts with their sources.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lower {

// The rules in pipeline order; Record::lowered_by has bit (1 << index) set by each.
// TransposeIdentity runs first (lowering.cpp); it is last here so that the older rules keep their bits.
enum class Rule : uint8_t { PsumCopies, PsumAccumulation, HoistLoads, LoopFolding, DmaCoalescing, TransposeIdentity };
constexpr int kRuleCount = 6;

const char* to_string(Rule rule);
std::optional<Rule> rule_named(std::string_view name);

// What a rule did to one trace.
struct RuleStats {
  uint64_t changed = 0;  // records it created or rewrote
  uint64_t removed = 0;  // records it dropped
};
inline uint16_t rule_bit(Rule rule) { return uint16_t(1u << int(rule)); }

struct Options {
  std::array<bool, kRuleCount> enabled{true, true, true, true, true, true};
  bool on(Rule rule) const { return enabled[size_t(rule)]; }

  // An instruction is "tiny" (its fixed cost dominates) below 128 elements per partition: the
  // compute engines need at least 128 elements per partition to be efficient (PERF Opt #5a),
  // and the static overhead appears when N << 128 (ARCH2).
  uint32_t tiny_free_elements = 128;
  // A DMA is "small" below 2 KiB per partition row: less is below the minimum recommended
  // transfer (DMABW: < 256 B severely overhead-bound, 256 B-2 KiB improving, >= 2 KiB minimum).
  uint32_t small_dma_row_bytes = 2048;
  // Folded instructions stay within what one instruction can address: 128 partitions, and
  // 4K elements per partition (the PSUM operand limit of VectorE/ScalarE, ARCH2; SBUF allows 64K).
  uint32_t max_partitions = 128;
  uint32_t max_fold_free_elements = 4096;
  // PSUM: 8 banks of 2 KiB per partition, one accumulation group per bank (ARCH2, ALLOC).
  uint32_t psum_bank_bytes = 2048;
  uint32_t psum_banks = 8;
  // Streaming bounds (memory, not semantics): records one rule holds back at most.
  uint32_t max_loop_body_records = 64;      // per iteration of a loop considered for folding
  uint32_t max_fold_iterations = 1024;      // iterations folded into one instruction at most
  uint32_t max_held_records = 4096;         // PSUM accumulation: records after a deferred add
  uint32_t dma_window_records = 64;         // DMA coalescing: records between merged transfers
};

// "all", "none" or a comma-separated list of rule names (every other rule off). Throws
// std::invalid_argument naming the unknown rule and listing the known ones.
Options parse_rules(std::string_view spec);
// The rules that are on, as parse_rules reads them back ("all", "none" or a list).
std::string rules_spec(const Options& options);

}  // namespace lower
