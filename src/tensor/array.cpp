#include "tensor/array.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include <fmt/format.h>

#include "tensor/detail.h"

namespace tensor {

// ---- allocation budget --------------------------------------------------------------------------

struct AllocationBudget::Account {
  uint64_t limit;
  std::atomic<uint64_t> used{0}, peak{0};
  explicit Account(uint64_t l) : limit(l) {}
};

namespace {
thread_local AllocationBudget* t_current_budget = nullptr;
}

AllocationBudget::AllocationBudget(uint64_t limit_bytes)
    : account_(std::make_shared<Account>(limit_bytes)), previous_(t_current_budget) {
  t_current_budget = this;
}
AllocationBudget::~AllocationBudget() { t_current_budget = previous_; }
AllocationBudget* AllocationBudget::current() { return t_current_budget; }
uint64_t AllocationBudget::used() const { return account_->used; }
uint64_t AllocationBudget::peak() const { return account_->peak; }
uint64_t AllocationBudget::limit() const { return account_->limit; }

void AllocationBudget::charge(uint64_t bytes) {
  uint64_t used = account_->used.load();
  if (bytes > account_->limit || used > account_->limit - bytes)
    throw BudgetExceeded(fmt::format("memory limit exceeded: allocating {} bytes with {} of {} bytes in use",
                                     bytes, used, account_->limit));
  used = account_->used += bytes;
  if (used > account_->peak) account_->peak = used;
}
void AllocationBudget::credit(uint64_t bytes) {
  // Clamped at zero: an interpreter container freed under a later run's budget credits that one
  // (arrays always credit the account they were charged to).
  uint64_t used = account_->used.load();
  while (!account_->used.compare_exchange_weak(used, used > bytes ? used - bytes : 0)) {
  }
}

// ---- buffers ------------------------------------------------------------------------------------

namespace {

// Kernels allocate and free the same tile sizes millions of times (a 128x512 float32 tile is
// 256 KiB, above glibc's mmap threshold), and fresh pages cost a page fault each. Freed blocks of
// tile-like sizes are kept per thread and handed out again for the same size.
class BlockCache {
 public:
  static constexpr uint64_t kMinBytes = 64 << 10, kMaxBytes = 8 << 20, kMaxTotal = 64 << 20;
  ~BlockCache() {
    for (auto& [bytes, data] : blocks_) std::free(data);
  }
  void* take(uint64_t bytes) {
    for (size_t idx = 0; idx < blocks_.size(); ++idx) {
      if (blocks_[idx].first != bytes) continue;
      void* data = blocks_[idx].second;
      blocks_[idx] = blocks_.back();
      blocks_.pop_back();
      total_ -= bytes;
      return data;
    }
    return nullptr;
  }
  bool give(void* data, uint64_t bytes) {
    if (bytes < kMinBytes || bytes > kMaxBytes || total_ + bytes > kMaxTotal) return false;
    blocks_.emplace_back(bytes, data);
    total_ += bytes;
    return true;
  }

 private:
  std::vector<std::pair<uint64_t, void*>> blocks_;
  uint64_t total_ = 0;
};

// The cache lives on the heap behind trivially destructible thread_locals, so buffers freed after
// the thread's destructors ran (static arrays at exit) simply bypass it.
thread_local BlockCache* t_cache = nullptr;
thread_local bool t_cache_gone = false;
struct CacheOwner {
  ~CacheOwner() {
    delete t_cache;
    t_cache = nullptr;
    t_cache_gone = true;
  }
};
thread_local CacheOwner t_cache_owner;

BlockCache* block_cache() {
  if (t_cache_gone) return nullptr;
  if (!t_cache) {
    (void)&t_cache_owner;  // constructs the owner, which deletes the cache at thread exit
    t_cache = new BlockCache;
  }
  return t_cache;
}

// Full-size arrays (a 4096x7168 float32 input is 117 MB, a bmm output 1 GiB) come from mmap and
// go back to the kernel on free, so every new one pays a page fault per 4 KiB page: about half a
// second of kernel time per GiB, a quarter of a whole silu check. A harness run allocates the
// same few sizes again and again (inputs, temporaries, outputs; the same again for every seed),
// so freed large blocks are kept, process-wide, up to kMaxTotal bytes, and reused for the same size.
class LargeBlockCache {
 public:
  static constexpr uint64_t kMinBytes = BlockCache::kMaxBytes + 1;
  static constexpr uint64_t kMaxTotal = uint64_t{2} << 30;
  static LargeBlockCache& instance() {
    static auto* cache = new LargeBlockCache;  // never destroyed: buffers may be freed at exit
    return *cache;
  }
  void* take(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t idx = 0; idx < blocks_.size(); ++idx) {
      if (blocks_[idx].first != bytes) continue;
      void* data = blocks_[idx].second;
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(idx));
      total_ -= bytes;
      return data;
    }
    return nullptr;
  }
  // Keeps the block; the oldest blocks are released when the total would pass kMaxTotal.
  void give(void* data, uint64_t bytes) {
    if (bytes > kMaxTotal) {
      std::free(data);
      return;
    }
    std::vector<void*> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (!blocks_.empty() && total_ + bytes > kMaxTotal) {
        released.push_back(blocks_.front().second);
        total_ -= blocks_.front().first;
        blocks_.erase(blocks_.begin());
      }
      blocks_.emplace_back(bytes, data);
      total_ += bytes;
    }
    for (void* block : released) std::free(block);
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<uint64_t, void*>> blocks_;  // oldest first
  uint64_t total_ = 0;
};

// A fresh large block on 2 MiB boundaries, marked for transparent huge pages (Linux's default
// policy is "madvise"): the first touch of a full-size array then faults once per 2 MiB instead
// of once per 4 KiB. Page faults were a third of a tutorial silu check's CPU time (perf, 2 Dec
// 2026; under the hypervisor each fault costs several microseconds). The kernel zeroes huge pages
// like small ones, and a system without THP ignores the advice.
void* allocate_large(uint64_t bytes, bool zeroed) {
  constexpr size_t kHugePage = size_t{2} << 20;
  size_t rounded = (size_t(bytes) + kHugePage - 1) / kHugePage * kHugePage;
  void* data = nullptr;
  if (posix_memalign(&data, kHugePage, rounded) != 0) return nullptr;
  madvise(data, rounded, MADV_HUGEPAGE);
  if (zeroed) std::memset(data, 0, bytes);
  return data;
}

void* allocate_block(uint64_t bytes, bool zeroed) {
  void* data = nullptr;
  if (bytes >= LargeBlockCache::kMinBytes) {
    data = LargeBlockCache::instance().take(bytes);
    if (!data) return allocate_large(bytes, zeroed);
  } else if (BlockCache* cache = block_cache()) {
    data = cache->take(bytes);
  }
  if (data) {
    if (zeroed) std::memset(data, 0, bytes);
    return data;
  }
  size_t alloc = bytes == 0 ? 1 : bytes;
  return zeroed ? std::calloc(alloc, 1) : std::malloc(alloc);
}

void free_block(void* data, uint64_t bytes) {
  if (bytes >= LargeBlockCache::kMinBytes) {
    LargeBlockCache::instance().give(data, bytes);
    return;
  }
  BlockCache* cache = block_cache();
  if (!cache || !cache->give(data, bytes)) std::free(data);
}

}  // namespace

struct Buffer {
  void* data = nullptr;
  uint64_t bytes = 0;
  std::shared_ptr<AllocationBudget::Account> account;

  Buffer(uint64_t n, bool zeroed) : bytes(n) {
    if (AllocationBudget* budget = AllocationBudget::current()) {
      budget->charge(n);
      account = budget->account_;
    }
    data = allocate_block(n, zeroed);
    if (!data) {
      if (account) account->used -= bytes;
      throw BudgetExceeded(fmt::format("out of memory allocating {} bytes", n));
    }
  }
  ~Buffer() {
    free_block(data, bytes);
    if (account) account->used -= bytes;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// ---- shapes -------------------------------------------------------------------------------------

int64_t num_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "(";
  for (size_t dim_idx = 0; dim_idx < shape.size(); ++dim_idx) {
    if (dim_idx) s += ", ";
    s += std::to_string(shape[dim_idx]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace detail {
Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  int64_t step = 1;
  for (size_t dim_idx = shape.size(); dim_idx-- > 0;) {
    strides[dim_idx] = step;
    step *= shape[dim_idx];
  }
  return strides;
}
}  // namespace detail

namespace {
void check_shape(const Shape& shape) {
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ArrayError("negative dimensions are not allowed: " + shape_str(shape));
    if (d != 0 && n > kMaxElements / d) throw ArrayError("array is too big: " + shape_str(shape));
    n *= d;
  }
}
}  // namespace

// ---- Array --------------------------------------------------------------------------------------

int Array::storage_bytes(DType dtype) { return storage_of(dtype) == Storage::F32 ? 4 : 8; }

Array::Array() : dtype_(DType::Float64), buffer_(std::make_shared<Buffer>(8, true)) {}

Array Array::bare(const Shape& shape, DType dtype) {
  check_shape(shape);
  Array a{Uninit{}};
  a.shape_ = shape;
  a.strides_ = detail::contiguous_strides(shape);
  a.dtype_ = dtype;
  return a;
}

Array Array::zeros(const Shape& shape, DType dtype) {
  Array a = bare(shape, dtype);
  a.buffer_ = std::make_shared<Buffer>(uint64_t(num_elements(shape)) * storage_bytes(dtype), true);
  return a;
}

Array Array::empty(const Shape& shape, DType dtype) {
  Array a = bare(shape, dtype);
  a.buffer_ = std::make_shared<Buffer>(uint64_t(num_elements(shape)) * storage_bytes(dtype), false);
  return a;
}

Array Array::full(const Shape& shape, DType dtype, double value) {
  Array a = empty(shape, dtype);
  double v = cast_scalar(dtype, value);
  int64_t n = a.size();
  switch (storage_of(dtype)) {
    case Storage::F32: std::fill(a.f32(), a.f32() + n, static_cast<float>(v)); break;
    case Storage::F64: std::fill(a.f64(), a.f64() + n, v); break;
    case Storage::I64: std::fill(a.i64(), a.i64() + n, static_cast<int64_t>(v)); break;
  }
  return a;
}

Array Array::shape_only(const Shape& shape, DType dtype) { return bare(shape, dtype); }

Array Array::scalar(DType dtype, double value) { return full({}, dtype, value); }

Array Array::from_values(const Shape& shape, DType dtype, const std::vector<double>& values) {
  Array a = empty(shape, dtype);
  if (static_cast<int64_t>(values.size()) != a.size())
    throw ArrayError(fmt::format("{} values do not fill shape {}", values.size(), shape_str(shape)));
  for (int64_t idx = 0; idx < a.size(); ++idx) {
    double v = cast_scalar(dtype, values[idx]);
    switch (storage_of(dtype)) {
      case Storage::F32: a.f32()[idx] = static_cast<float>(v); break;
      case Storage::F64: a.f64()[idx] = v; break;
      case Storage::I64: a.i64()[idx] = static_cast<int64_t>(v); break;
    }
  }
  return a;
}

bool Array::is_contiguous() const {
  int64_t step = 1;
  for (size_t dim_idx = shape_.size(); dim_idx-- > 0;) {
    if (shape_[dim_idx] == 1) continue;
    if (strides_[dim_idx] != step) return false;
    step *= shape_[dim_idx];
  }
  return true;
}

void* Array::raw() const {
  if (!buffer_) return nullptr;
  return static_cast<char*>(buffer_->data) + offset_ * storage_bytes(dtype_);
}

float* Array::f32() const {
  if (storage_of(dtype_) != Storage::F32) throw std::logic_error("f32() on a non-float32 storage array");
  if (!buffer_ && size() > 0) throw ArrayError("element access on a shape-only array");  // never a null pointer
  return static_cast<float*>(raw());
}
double* Array::f64() const {
  if (storage_of(dtype_) != Storage::F64) throw std::logic_error("f64() on a non-float64 storage array");
  if (!buffer_ && size() > 0) throw ArrayError("element access on a shape-only array");  // never a null pointer
  return static_cast<double*>(raw());
}
int64_t* Array::i64() const {
  if (storage_of(dtype_) != Storage::I64) throw std::logic_error("i64() on a non-integer storage array");
  if (!buffer_ && size() > 0) throw ArrayError("element access on a shape-only array");  // never a null pointer
  return static_cast<int64_t*>(raw());
}

namespace {
int64_t element_offset(const Array& a, const std::vector<int64_t>& index) {
  if (static_cast<int>(index.size()) != a.ndim())
    throw ArrayError(fmt::format("{} indices for a {}-d array", index.size(), a.ndim()));
  int64_t off = 0;
  for (int dim_idx = 0; dim_idx < a.ndim(); ++dim_idx) {
    int64_t i = index[dim_idx];
    if (i < 0 || i >= a.shape()[dim_idx])
      throw ArrayError(fmt::format("index {} is out of bounds for axis {} with size {}", i, dim_idx,
                                   a.shape()[dim_idx]));
    off += i * a.strides()[dim_idx];
  }
  return off;
}
void require_data(const Array& a) {
  if (!a.has_data()) throw ArrayError("element access on a shape-only array");
}
}  // namespace

double Array::get(const std::vector<int64_t>& index) const {
  require_data(*this);
  int64_t off = element_offset(*this, index);
  switch (storage_of(dtype_)) {
    case Storage::F32: return f32()[off];
    case Storage::F64: return f64()[off];
    case Storage::I64: return static_cast<double>(i64()[off]);
  }
  return 0;
}

void Array::set(const std::vector<int64_t>& index, double value) {
  require_data(*this);
  int64_t off = element_offset(*this, index);
  double v = cast_scalar(dtype_, value);
  switch (storage_of(dtype_)) {
    case Storage::F32: f32()[off] = static_cast<float>(v); break;
    case Storage::F64: f64()[off] = v; break;
    case Storage::I64: i64()[off] = static_cast<int64_t>(v); break;
  }
}

double Array::item() const {
  if (size() != 1)
    throw ArrayError(fmt::format("can only convert an array of size 1 to a Python scalar (size {})", size()));
  return get(std::vector<int64_t>(ndim(), 0));
}

Array Array::view(const Shape& shape, const Strides& strides, int64_t offset) const {
  Array v = *this;
  v.shape_ = shape;
  v.strides_ = strides;
  v.offset_ = offset;
  return v;
}

Array Array::with_dtype(DType dtype) const {
  if (storage_of(dtype) != storage_of(dtype_)) throw std::logic_error("with_dtype across storages");
  Array v = *this;
  v.dtype_ = dtype;
  return v;
}

Array Array::copy() const {
  if (!has_data()) return shape_only(shape_, dtype_);
  Array out = empty(shape_, dtype_);
  detail::convert_into(out, *this);
  return out;
}

Array Array::contiguous() const {
  if (!has_data() || is_contiguous()) return *this;
  return copy();
}

uint64_t checksum(const Array& a) {
  if (!a.has_data()) return 0;
  Array c = a.contiguous();
  size_t n = size_t(c.size()) * size_t(Array::storage_bytes(c.dtype()));
  const auto* bytes = static_cast<const unsigned char*>(c.raw());
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 31 + uint64_t(c.dtype()));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace tensor
