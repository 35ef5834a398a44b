#include "trn/hazards.h"

#include <algorithm>

namespace trn {
namespace {

// Entries kept per tile and kind; older ones fold into one region covering them all (still
// correct, only more conservative).
constexpr size_t kMaxEntries = 16;

}  // namespace

Region Region::of(const Operand& op) {
  Region r;
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
    Entry merged = list[0];
    for (size_t i = 0; i < list.size(); ++i) {
      const Entry& o = list[i];
      merged.r.lo = std::min(merged.r.lo, o.r.lo), merged.r.hi = std::max(merged.r.hi, o.r.hi);
      merged.r.p_lo = std::min(merged.r.p_lo, o.r.p_lo), merged.r.p_hi = std::max(merged.r.p_hi, o.r.p_hi);
      if (o.at >= merged.at) merged.at = o.at, merged.writer = o.writer;
    }
    list.clear();
    list.push_back(merged);
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
