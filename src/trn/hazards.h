// Data hazards of one on-chip tile by accessed region: an instruction waits only for the writes
// (RAW, WAW) and reads (WAR) that touch the part of the tile it accesses. A kernel that keeps a
// group of tiles as one tile with the group in the free dimension (`w = nl.ndarray((128, k, n))`,
// `w[:, k, :]`) then runs like one that keeps them as block-dimension tiles: the compiler
// tracks dependences by address range, not by declared tensor.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trn/trace.h"

namespace trn {

constexpr int kNoWriter = -2, kDmaWriter = -1;  // writers besides the engine tracks

// Partitions [p_lo, p_hi) by elements [lo, hi) of each partition row.
struct Region {
  uint32_t lo = 0, hi = UINT32_MAX;
  uint32_t p_lo = 0, p_hi = UINT32_MAX;
  static Region of(const Operand& op);  // over-approximates strided accesses by their extent
  bool overlaps(const Region& o) const { return lo < o.hi && o.lo < hi && p_lo < o.p_hi && o.p_lo < p_hi; }
};

class Hazards {
 public:
  struct Write {
    double at = 0;
    int writer = kNoWriter;
  };
  // The latest write that overlaps `r` (at 0 by nobody when none).
  Write last_write(const Region& r) const;
  // The end of the latest read that overlaps `r` (0 when none).
  double last_read(const Region& r) const;
  void add_read(const Region& r, double end);
  // A write that covers the whole tile forgets everything before it.
  void add_write(const Region& r, double end, int writer, bool whole_tile);

 private:
  struct Entry {
    Region r;
    double at;
    int writer;
  };
  // A few entries inline (most tiles are accessed whole), more on the heap.
  class List {
   public:
    size_t size() const { return inline_count_ + heap_.size(); }
    const Entry& operator[](size_t i) const { return i < inline_count_ ? inline_[i] : heap_[i - inline_count_]; }
    Entry& operator[](size_t i) { return i < inline_count_ ? inline_[i] : heap_[i - inline_count_]; }
    void push_back(const Entry& e);
    void clear() { inline_count_ = 0, heap_.clear(); }

   private:
    static constexpr size_t kInline = 2;
    Entry inline_[kInline];
    size_t inline_count_ = 0;
    std::vector<Entry> heap_;
  };
  static void add(List& list, const Entry& e);
  List writes_, reads_;
};

}  // namespace trn
