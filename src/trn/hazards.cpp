#include "trn/hazards.h"

#include <algorithm>

namespace trn {
namespace {

// Entries kept per tile and kind. When a tile has more, the older half folds into one region
// covering them, at the latest of their times: still correct, only more conservative, and the
// false dependences it makes are on old times, which later instructions are past. Folding every
// entry (the rule until 3 Dec 2026) made an instruction on column i of a tile whose 32 columns
// are written and read by 32 loop iterations wait for the latest of all of them: a [128, 1]
// column of a wider tile then cost more than a [128, 1] tile of its own (nki_api gqa_full's
// `neg_max[:, qt:qt + 1]`; tests/unit/fidelity/spelling_pairs_test.cpp).
constexpr size_t kMaxEntries = 32;

}  // namespace

Region Region::of(const Operand& op) {
  Region r;
  // An indirect access's rows are data (an index tile read at run time): the whole tensor.
  if (op.indirect) return r;
  r.lo = uint32_t(std::max<int64_t>(op.offset, 0));
  r.hi = r.lo + std::max<uint32_t>(op.extent ? op.extent : op.free_elements, 1);
  r.p_lo = op.partition_start;
  r.p_hi = uint32_t(op.partition_start) + std::max<uint16_t>(op.partitions, 1);
  return r;
}

void Hazards::List::push_back(const Entry& e) {
  if (heap_.empty() && inline_count_ < kInline) inline_[inline_count_++] = e;
  else heap_.push_back(e);
}

Hazards::Write Hazards::last_write(const Region& r) const {
  Write w;
  for (size_t i = 0; i < writes_.size(); ++i) {
    const Entry& e = writes_[i];
    if (e.at >= w.at && e.r.overlaps(r)) w = {e.at, e.writer};
  }
  return w;
}

double Hazards::last_read(const Region& r) const {
  double at = 0;
  for (size_t i = 0; i < reads_.size(); ++i)
    if (reads_[i].r.overlaps(r)) at = std::max(at, reads_[i].at);
  return at;
}

void Hazards::add(List& list, const Entry& e) {
  for (size_t i = 0; i < list.size(); ++i) {
    Entry& old = list[i];
    if (old.r.lo == e.r.lo && old.r.hi == e.r.hi && old.r.p_lo == e.r.p_lo && old.r.p_hi == e.r.p_hi) {
      if (e.at >= old.at) old = e;
      return;
    }
  }
  if (list.size() >= kMaxEntries) {
    std::vector<Entry> all;
    all.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) all.push_back(list[i]);
    // Oldest first; ties keep insertion order, so the result does not depend on the sort.
    std::stable_sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.at < b.at; });
    const size_t fold = all.size() / 2;
    Entry merged = all[0];
    for (size_t i = 0; i < fold; ++i) {
      const Entry& o = all[i];
      merged.r.lo = std::min(merged.r.lo, o.r.lo), merged.r.hi = std::max(merged.r.hi, o.r.hi);
      merged.r.p_lo = std::min(merged.r.p_lo, o.r.p_lo), merged.r.p_hi = std::max(merged.r.p_hi, o.r.p_hi);
      if (o.at >= merged.at) merged.at = o.at, merged.writer = o.writer;
    }
    list.clear();
    list.push_back(merged);
    for (size_t i = fold; i < all.size(); ++i) list.push_back(all[i]);
  }
  list.push_back(e);
}

void Hazards::add_read(const Region& r, double end) { add(reads_, {r, end, kNoWriter}); }

void Hazards::add_write(const Region& r, double end, int writer, bool whole_tile) {
  if (whole_tile) {
    writes_.clear();
    reads_.clear();
  }
  add(writes_, {r, end, writer});
}

}  // namespace trn
