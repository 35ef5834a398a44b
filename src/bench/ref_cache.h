// On-disk cache of reference outputs, keyed by (hash of the reference file text, seed): the
// references are the slow half of a check (mamba's forward loops 7168 times), and they never
// change between kernels of the same task.
//
// File format (little-endian), one file per key, `<dir>/<hash>-s<seed>.ref`:
//   "AOREF001"  u32 count  then per array:  u8 name_len, dtype name (numpy spelling),
//   u8 ndim, i64 shape[ndim], element data in C order (float32 as 4 bytes, float64 and
//   integers as 8 bytes: the array's storage format).
// Writes go to a temporary file renamed into place, so concurrent workers never see half a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor/array.h"

namespace bench {

uint64_t content_hash(const std::string& text);  // FNV-1a 64

// $ACCELOPT_CACHE_DIR/refs, else $XDG_CACHE_HOME/accelopt/refs, else ~/.cache/accelopt/refs
// ("" when none of these can be formed).
std::string default_ref_cache_dir();

class RefCache {
 public:
  explicit RefCache(std::string dir) : dir_(std::move(dir)) {}
  bool enabled() const { return !dir_.empty(); }
  std::string path_for(uint64_t ref_hash, int seed) const;
  // nullopt when absent or unreadable (a corrupt file is treated as a miss).
  std::optional<std::vector<tensor::Array>> load(uint64_t ref_hash, int seed) const;
  // Best effort: a failure to write only costs recomputation later.
  void store(uint64_t ref_hash, int seed, const std::vector<tensor::Array>& outputs) const;

 private:
  std::string dir_;
};

// The serialisation itself (exposed for tests).
std::string encode_arrays(const std::vector<tensor::Array>& arrays);
std::optional<std::vector<tensor::Array>> decode_arrays(const std::string& bytes);

}  // namespace bench
