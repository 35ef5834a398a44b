#include "trn/memory_model.h"

#include <algorithm>

#include <fmt/format.h>

namespace trn {

SpacePool::SpacePool(uint64_t capacity) : capacity_(capacity), free_(capacity) {
  if (capacity) chunks_.emplace(0.0, capacity);
}

double SpacePool::take(uint64_t bytes) {
  double latest = 0;
  while (bytes > 0 && !chunks_.empty()) {
    auto it = chunks_.begin();
    latest = std::max(latest, it->first);
    uint64_t used = std::min(bytes, it->second);
    bytes -= used;
    free_ -= used;
    if (used == it->second) chunks_.erase(it);
    else it->second -= used;
  }
  return latest;
}

void SpacePool::give(uint64_t bytes, double release_time) {
  if (bytes == 0) return;
  free_ += bytes;
  // Merge with an equal release time so that the pool stays small under steady reuse.
  auto it = chunks_.find(release_time);
  if (it != chunks_.end()) it->second += bytes;
  else chunks_.emplace(release_time, bytes);
  // Bound the pool: fold the oldest releases together (they are long past for the scheduler).
  if (chunks_.size() > 4096) {
    auto first = chunks_.begin();
    auto second = std::next(first);
    uint64_t merged = first->second + second->second;
    double when = second->first;
    chunks_.erase(first, std::next(second));
    chunks_.emplace(when, merged);
  }
}

namespace {

// The tile as the author knows it: its name= or Python variable; an operation's result not yet
// bound to a name when it is allocated has none, so it is called what it is (the error's
// file:line points at the statement).
std::string tile_name(const AllocInfo& alloc) {
  if (!alloc.name.empty()) return fmt::format("tensor '{}'", alloc.name);
  return fmt::format("an unnamed intermediate tile (tensor {}, the result of an operation)", alloc.tensor_id);
}

}  // namespace

MemoryModel::MemoryModel(const ArchConfig& arch)
    : arch_(arch), sbuf_(arch.sbuf_bytes_per_partition), psum_(arch.psum_bytes_per_partition) {}

void MemoryModel::declare(const AllocInfo& alloc) {
  if (alloc.buffer == BufferKind::Hbm) return;
  const uint64_t capacity = pool(alloc.buffer).capacity();
  if (alloc.bytes_per_partition > capacity)
    throw AllocationError(fmt::format(
        "{} needs {} bytes per partition in {} but a partition holds {} bytes",
        tile_name(alloc), alloc.bytes_per_partition, to_string(alloc.buffer), capacity));
  if (alloc.partitions > arch_.partitions)
    throw AllocationError(fmt::format("{} spans {} partitions but {} has {}", tile_name(alloc),
                                      alloc.partitions, to_string(alloc.buffer), arch_.partitions));
  // Each region of a tile is a tile of its own (AllocInfo::regions; the simulator keys accesses by
  // region as it keys the blocks of a block-dimension tensor).
  const uint32_t regions = std::max<uint32_t>(alloc.regions, 1);
  tensors_[alloc.tensor_id] = {alloc.buffer, alloc.bytes_per_partition / regions,
                               std::max<uint16_t>(alloc.partitions, 1), alloc.blocks * regions};
}

TileState* MemoryModel::find(TileKey key) {
  auto it = tiles_.find(key);
  return it == tiles_.end() ? nullptr : &it->second;
}

TileState& MemoryModel::tile(const Operand& op) {
  TileKey key = tile_key(op.tensor_id, op.block);
  auto it = tiles_.find(key);
  if (it != tiles_.end()) return it->second;
  TileState t;
  t.tensor_id = op.tensor_id;
  t.buffer = op.buffer;
  auto info = tensors_.find(op.tensor_id);
  if (info != tensors_.end()) {
    t.bytes_per_partition = info->second.bytes_per_partition;
    t.partitions = info->second.partitions;
    // A single-tile tensor needs no more lookups: keep memory bounded on long traces.
    if (info->second.blocks == 1) tensors_.erase(info);
  } else {
    // Undeclared tensor: size the tile by its first access.
    t.bytes_per_partition = uint64_t(op.free_elements) * op.dtype_bytes;
    t.partitions = op.partitions;
    if (t.bytes_per_partition > pool(op.buffer).capacity())
      throw AllocationError(fmt::format("tile of tensor {} needs {} bytes per partition in {} but a "
                                        "partition holds {} bytes",
                                        op.tensor_id, t.bytes_per_partition, to_string(op.buffer),
                                        pool(op.buffer).capacity()));
  }
  return tiles_.emplace(key, std::move(t)).first->second;
}

double MemoryModel::make_resident(TileKey key, bool reads, bool writes, uint64_t read_bytes,
                                  const std::vector<TileKey>& pinned, const TransferFn& emit,
                                  bool hbm_load) {
  TileState& t = tiles_.at(key);
  if (t.resident) return 0;
  if (hbm_load && t.evicted && !t.spilled && t.clean &&
      pool(t.buffer).free_bytes() < t.bytes_per_partition) {
    // A load of one part of a rematerialized tile (a tile of [128, 40, 1024] loaded a
    // [128, 1, 1024] slice at a time, evicted between two slices) does not need the other parts
    // on chip: the compiler loads each part where it is read, as it does for the tile's earlier
    // parts. Bringing the whole tile back for it (its space, a reload of everything loaded so far)
    // is an artefact of the tile being the unit of space: the same program with the slices as
    // blocks of a block-dimension tensor ([40, par 128, 1024]) evicts and reloads per block and
    // never pays it (TrnSimulator.PartialLoadIntoAnEvictedTileStaysRematerialized).
    return 0;
  }
  if (t.evicted && !t.spilled && reads && !writes && t.content_bytes > 0) {
    // Rematerialized: the compiler re-issues the load of what this instruction reads.
    uint64_t bytes = std::min(read_bytes, t.content_bytes);
    t.ready = emit({MemoryTransfer::Kind::Reload, key, t.buffer, bytes, t.partitions, t.saved_at});
    t.writer = kDmaWriter;
    t.hazards.reset();
    return 0;
  }
  SpacePool& space = pool(t.buffer);
  if (space.free_bytes() < t.bytes_per_partition)
    evict_for(t.buffer, t.bytes_per_partition, pinned, emit);
  double space_time = space.take(t.bytes_per_partition);
  t.resident = true;
  resident_[key] = true;
  if (t.evicted && reads && t.content_bytes > 0) {
    double earliest = std::max(space_time, t.saved_at);
    auto kind = t.spilled ? MemoryTransfer::Kind::SpillReload : MemoryTransfer::Kind::Reload;
    t.ready = emit({kind, key, t.buffer, t.content_bytes, t.partitions, earliest});
    t.writer = kDmaWriter;
    t.hazards.reset();
    t.last_read_end = 0;
  } else if (t.evicted) {
    t.content_bytes = 0;  // overwritten: the old contents are not needed
    t.clean = true;
  }
  t.evicted = t.spilled = false;
  return space_time;
}

double MemoryModel::rename(TileKey key) {
  TileState& t = tiles_.at(key);
  SpacePool& space = pool(t.buffer);
  space.give(t.bytes_per_partition, std::max(t.last_read_end, t.ready));
  double free_at = space.take(t.bytes_per_partition);
  t.last_read_end = 0;
  return free_at;
}

void MemoryModel::evict_for(BufferKind buffer, uint64_t need, const std::vector<TileKey>& pinned,
                            const TransferFn& emit) {
  SpacePool& space = pool(buffer);
  while (space.free_bytes() < need) {
    TileKey victim = pick_victim(buffer, pinned, need - space.free_bytes());
    if (victim == kNeverUsed)
      throw AllocationError(fmt::format(
          "the operands of one instruction need more than the {} bytes per partition of {}",
          space.capacity(), to_string(buffer)));
    const TileState& v = tiles_.at(victim);
    if (!v.clean) {
      evict(victim, emit);
      continue;
    }
    // Rematerialize the whole tensor: drop every resident clean tile of it.
    std::vector<TileKey> same;
    for (const auto& [key, unused] : resident_) {
      const TileState& s = tiles_.at(key);
      bool is_pinned = std::find(pinned.begin(), pinned.end(), key) != pinned.end();
      if (s.tensor_id == v.tensor_id && s.clean && !is_pinned) same.push_back(key);
    }
    std::sort(same.begin(), same.end());
    for (TileKey key : same) evict(key, emit);
  }
}

// Among tiles next used by the same instruction (a tie for Belady) the choice must not depend on
// how the kernel happened to declare them (tensor ids follow declaration order: the blocks of one
// tensor, or a list of separate tiles, or a tile declared before the loop): a clean tile first (no
// save), then the smallest tile that alone covers the shortfall, else the largest (fewest
// evictions), then the lower key, for determinism.
namespace {

bool better_tie(const TileState& t, TileKey key, const TileState& best, TileKey best_key, uint64_t shortfall) {
  if (t.clean != best.clean) return t.clean;
  bool t_covers = t.bytes_per_partition >= shortfall, best_covers = best.bytes_per_partition >= shortfall;
  if (t_covers != best_covers) return t_covers;
  if (t.bytes_per_partition != best.bytes_per_partition)
    return t_covers ? t.bytes_per_partition < best.bytes_per_partition
                    : t.bytes_per_partition > best.bytes_per_partition;
  return key < best_key;
}

}  // namespace

TileKey MemoryModel::pick_victim(BufferKind buffer, const std::vector<TileKey>& pinned, uint64_t shortfall) const {
  TileKey best = kNeverUsed;
  uint64_t best_use = 0;
  for (const auto& [key, unused] : resident_) {
    const TileState& t = tiles_.at(key);
    if (t.buffer != buffer) continue;
    if (std::find(pinned.begin(), pinned.end(), key) != pinned.end()) continue;
    // Farthest next use first (Belady); ties as better_tie says.
    bool better = best == kNeverUsed || t.next_use > best_use;
    if (!better && t.next_use == best_use) better = better_tie(t, key, tiles_.at(best), best, shortfall);
    if (better) {
      best = key;
      best_use = t.next_use;
    }
  }
  return best;
}

void MemoryModel::evict(TileKey key, const TransferFn& emit) {
  TileState& t = tiles_.at(key);
  double release_time = std::max(t.last_read_end, t.ready);
  t.evicted = true;
  t.spilled = !t.clean;
  if (t.spilled) {
    t.saved_at = emit({MemoryTransfer::Kind::SpillSave, key, t.buffer, t.content_bytes,
                       t.partitions, t.ready});
    release_time = std::max(release_time, t.saved_at);
  } else {
    t.saved_at = release_time;  // a rematerializing load may overwrite the space from then on
  }
  release(key, t, release_time);
}

void MemoryModel::release(TileKey key, TileState& t, double when) {
  pool(t.buffer).give(t.bytes_per_partition, when);
  t.resident = false;
  resident_.erase(key);
}

void MemoryModel::set_next_use(TileKey key, uint64_t next_use, bool next_reads) {
  TileState* t = find(key);
  if (!t) return;
  t->next_use = next_use;
  if (!t->resident || next_reads) return;
  // Dead: no later instruction reads the current contents.
  release(key, *t, std::max(t->last_read_end, t->ready));
  if (next_use == kNeverUsed) {
    // Nothing in the look-ahead window touches it again: forget it (bounded memory). A later
    // record that reads it anyway finds a fresh tile, which costs nothing to bring back.
    tiles_.erase(key);
  } else {
    t->evicted = false;
    t->content_bytes = 0;
  }
}

uint64_t MemoryModel::resident_bytes(BufferKind buffer) const {
  const SpacePool& p = buffer == BufferKind::Psum ? psum_ : sbuf_;
  return p.capacity() - p.free_bytes();
}

}  // namespace trn
