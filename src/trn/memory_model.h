// On-chip memory as the compiler manages it: SBUF and PSUM tiles are allocated by liveness (a
// tile occupies space from its first write to its last use, whatever the declared size of its
// block-dimension tensor), and when live tiles exceed a memory the tile needed farthest in the
// future is evicted:
//   - a tile that is an unmodified copy of HBM data is dropped and re-loaded from HBM at its next
//     use, together with the other resident tiles of its tensor (the compiler rematerializes the
//     tensor's loads at the use site); counted as HBM reads, not as spill;
//   - any other tile is spilled: saved to HBM and reloaded at its next use (spill bytes).
// Space is a pool of bytes per partition with release times, so that a new tile waits for the
// space it takes to be released (its previous occupant's last read or spill save).
// This class keeps only bookkeeping; the simulator schedules the DMAs it asks for.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "trn/arch_config.h"
#include "trn/hazards.h"
#include "trn/trace.h"

namespace trn {

// A tile that can never fit in its memory, like the compiler's allocation error.
// `line` is the kernel source line of the allocation when the trace recorded it (0: unknown).
class AllocationError : public std::runtime_error {
 public:
  explicit AllocationError(const std::string& message, uint32_t line = 0) : std::runtime_error(message), line(line) {}
  uint32_t line = 0;
};

using TileKey = uint64_t;
inline TileKey tile_key(uint32_t tensor_id, uint32_t block) { return (uint64_t(tensor_id) << 32) | block; }

constexpr uint64_t kNeverUsed = UINT64_MAX;

struct TileState {
  uint32_t tensor_id = 0;
  BufferKind buffer = BufferKind::Sbuf;
  uint64_t bytes_per_partition = 0;
  uint16_t partitions = 128;
  bool resident = false;
  bool clean = true;           // unmodified copy of HBM data (only DMA loads wrote it)
  bool evicted = false;        // dropped or spilled: must come back before its next use
  bool spilled = false;        // evicted dirty: the copy lives in HBM spill space
  uint64_t content_bytes = 0;  // bytes actually written (what a reload or spill moves)
  uint64_t next_use = kNeverUsed;
  double ready = 0;            // time the last write completes
  int writer = kNoWriter;      // scheduler track of the last writer (kDmaWriter: a DMA)
  double last_read_end = 0;    // latest end among reads since the last write
  double saved_at = 0;         // time the spill save completes
  // Reads and writes by region, kept only once the tile is accessed in part; until then the
  // whole-tile times above say it all (most tiles, and it keeps the state small).
  std::unique_ptr<Hazards> hazards;

  // Whether `op` covers the whole tile.
  bool covers(const Operand& op) const {
    return op.partition_start == 0 && op.partitions >= partitions && op.offset == 0 &&
           uint64_t(op.free_elements) * op.dtype_bytes >= bytes_per_partition;
  }
  Hazards::Write last_write(const Region& r) const {
    return hazards ? hazards->last_write(r) : Hazards::Write{ready, writer};
  }
  double last_read(const Region& r) const { return hazards ? hazards->last_read(r) : last_read_end; }
};

// Bytes per partition with the time they become free.
class SpacePool {
 public:
  explicit SpacePool(uint64_t capacity);
  // Takes `bytes` from the earliest released space; returns the time the last piece was released.
  double take(uint64_t bytes);
  void give(uint64_t bytes, double release_time);
  uint64_t free_bytes() const { return free_; }
  uint64_t capacity() const { return capacity_; }

 private:
  std::multimap<double, uint64_t> chunks_;  // release time -> bytes
  uint64_t capacity_, free_;
};

// A DMA the memory model asks for.
// The simulator schedules it no earlier than `earliest` and returns its completion time.
struct MemoryTransfer {
  enum class Kind { Reload, SpillSave, SpillReload } kind;
  TileKey key;
  BufferKind buffer;
  uint64_t bytes;
  uint16_t partitions;
  double earliest;
};
using TransferFn = std::function<double(const MemoryTransfer&)>;

class MemoryModel {
 public:
  explicit MemoryModel(const ArchConfig& arch);

  // Registers a tensor's tile geometry; throws AllocationError for a tile that can never fit.
  void declare(const AllocInfo& alloc);

  // The state of a tile, created on first reference from the operand if undeclared.
  TileState& tile(const Operand& op);
  TileState* find(TileKey key);

  // Makes a tile resident before an instruction touches it (`reads`: the instruction needs its
  // old contents, so an evicted tile must come back; `writes`: it modifies the tile). `pinned`
  // tiles (the instruction's other operands) are never victims. Spill saves and the reload go
  // through `emit` in order; the reload's completion becomes the tile's `ready`. Returns the time
  // the tile's space is free. An evicted clean tile that is only read stays rematerialized: each
  // read re-loads just the bytes it reads (`read_bytes`) and the tile does not come back on chip.
  // `hbm_load`: the access is a DMA load from HBM writing part of the tile; into an evicted clean
  // tile that has no room to come back without evicting, it stays rematerialized too (its bytes
  // are HBM data the compiler re-loads where they are read), instead of taking the whole tile's
  // space back and re-loading everything loaded before it.
  double make_resident(TileKey key, bool reads, bool writes, uint64_t read_bytes,
                       const std::vector<TileKey>& pinned, const TransferFn& emit,
                       bool hbm_load = false);

  // A full overwrite of a resident tile whose contents are still being read goes to a fresh
  // physical buffer (the allocator gives a rewritten tile more than one physical buffer when space
  // allows, ALLOC): the old one is released after its reads. Returns the time the new space is
  // free; it is the old buffer's release time only when no other space is free.
  double rename(TileKey key);

  // After the instruction: when the tile is next used, and whether that use reads it. A tile
  // with no further read is dead and its space returns to the pool once its reads are done.
  void set_next_use(TileKey key, uint64_t next_use, bool next_reads);

  uint64_t resident_bytes(BufferKind buffer) const;
  // Bytes per partition free in a memory now (without evicting anything).
  uint64_t free_bytes(BufferKind buffer) { return pool(buffer).free_bytes(); }

 private:
  struct TensorInfo {
    BufferKind buffer;
    uint64_t bytes_per_partition;
    uint16_t partitions;
    uint32_t blocks;
  };
  SpacePool& pool(BufferKind buffer) { return buffer == BufferKind::Psum ? psum_ : sbuf_; }
  void evict_for(BufferKind buffer, uint64_t need, const std::vector<TileKey>& pinned,
                 const TransferFn& emit);
  // The tile to evict: farthest next use (Belady). `shortfall`: the bytes per partition still
  // missing, which decides ties (see the definition).
  TileKey pick_victim(BufferKind buffer, const std::vector<TileKey>& pinned, uint64_t shortfall) const;
  void evict(TileKey key, const TransferFn& emit);
  void release(TileKey key, TileState& t, double when);

  const ArchConfig& arch_;
  SpacePool sbuf_, psum_;
  std::unordered_map<uint32_t, TensorInfo> tensors_;
  std::unordered_map<TileKey, TileState> tiles_;
  std::unordered_map<TileKey, bool> resident_;  // resident tiles (victim candidates)
};

}  // namespace trn
