// On-disk cache of reference outputs, keyed by (hash of the reference file text, seed): the
// references are the slow half of a check (mamba's forward loops 7168 times), and they never
// change between kernels of the same task.
//
// File format (little-endian), one file per key, `<dir>/<hash>-s<seed>.ref`:
//   "AOREF003"  f64 compute_seconds  u8 n, n x (u8 name_len, dtype name): the narrow float formats
//   forward() computed in (eval/precision.h)  u32 count  then per array:  u8 name_len, dtype name (numpy
//   spelling), u8 ndim, i64 shape[ndim], element data in C order (float32 as 4 bytes, float64 and
//   integers as 8 bytes: the array's storage format). compute_seconds is how long forward() took.
// Writes go to a temporary file renamed into place, so concurrent workers never see half a file.
//
// The cache must not fill the disk (full-size outputs of all 14 tasks and 5 seeds are 16 GB), so
// the directory is kept under a size cap ($ACCELOPT_REF_CACHE_MAX_MB, default 4096) by value: a
// file is worth the seconds of recomputation it saves per byte. When a store would exceed the cap,
// files worth less than the new one are evicted, least valuable first; if that is not enough, the
// new one is not stored. Outputs that are quicker to recompute than to read back (bmm's 1 GiB
// output) are never stored, nor is a file that would take more than half of the free space.
// (A benchmark run cycles through every task: least-recently-used eviction would evict each file
// just before it is needed again.)
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tensor/array.h"
#include "tensor/dtype.h"

namespace eval {

// $ACCELOPT_CACHE_DIR/refs, else $XDG_CACHE_HOME/accelopt/refs, else ~/.cache/accelopt/refs
// ("" when none of these can be formed).
std::string default_ref_cache_dir();

struct RefCachePolicy {
  uint64_t max_bytes = uint64_t{4096} << 20;  // the whole directory
  // Outputs are kept only when computing them took at least twice as long as reading this many
  // bytes per second (a conservative disk read rate, decoding included).
  double read_bytes_per_second = 1e9;
  static RefCachePolicy from_env();  // max_bytes from $ACCELOPT_REF_CACHE_MAX_MB when set
};

// Reference outputs by (base::content_hash of the reference text, seed).
class RefCache {
 public:
  explicit RefCache(std::string dir, RefCachePolicy policy = RefCachePolicy::from_env())
      : dir_(std::move(dir)), policy_(policy) {}
  bool enabled() const { return !dir_.empty(); }
  std::string path_for(const std::string& ref_hash, int seed) const;
  // nullopt when absent or unreadable (a corrupt file is treated as a miss); `formats` receives
  // the narrow float formats forward() computed in.
  std::optional<std::vector<tensor::Array>> load(const std::string& ref_hash, int seed,
                                                 std::vector<tensor::DType>* formats = nullptr) const;
  // Best effort: a failure to write only costs recomputation later. `compute_seconds` is how long
  // forward() took; outputs cheaper to recompute than to read back are not stored.
  void store(const std::string& ref_hash, int seed, const std::vector<tensor::Array>& outputs,
             double compute_seconds = std::numeric_limits<double>::infinity(),
             const std::vector<tensor::DType>& formats = {}) const;
  // Whether outputs of `bytes` that took `compute_seconds` go to disk (policy and free space only).
  bool worth_storing(uint64_t bytes, double compute_seconds) const;

 private:
  // Evicts files worth less than `seconds_per_byte` until `bytes` more fit under the cap; false
  // when they cannot.
  bool make_room(uint64_t bytes, double seconds_per_byte) const;

  std::string dir_;
  RefCachePolicy policy_;
};

// The serialisation itself (exposed for tests).
std::string encode_arrays(const std::vector<tensor::Array>& arrays, double compute_seconds = 0,
                          const std::vector<tensor::DType>& formats = {});
std::optional<std::vector<tensor::Array>> decode_arrays(const std::string& bytes,
                                                        std::vector<tensor::DType>* formats = nullptr);

}  // namespace eval
