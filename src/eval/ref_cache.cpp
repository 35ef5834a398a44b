#include "eval/ref_cache.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <algorithm>

#include <fmt/core.h>

#include "base/atomic_file.h"
#include "tensor/dtype.h"

namespace eval {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'A', 'O', 'R', 'E', 'F', '0', '0', '3'};

size_t storage_bytes(tensor::DType t) { return tensor::storage_of(t) == tensor::Storage::F32 ? 4 : 8; }

const char* raw_data(const tensor::Array& a) {
  switch (tensor::storage_of(a.dtype())) {
    case tensor::Storage::F32: return reinterpret_cast<const char*>(a.f32());
    case tensor::Storage::F64: return reinterpret_cast<const char*>(a.f64());
    case tensor::Storage::I64: return reinterpret_cast<const char*>(a.i64());
  }
  return nullptr;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Sequential readers over the encoded bytes (in memory, or straight from the file so that a
// full-size output is read into its array with no intermediate copy); every read is bounds-checked.
class StringReader {
 public:
  explicit StringReader(const std::string& b) : bytes_(b) {}
  template <class T>
  bool get(T& v) {
    return get_bytes(reinterpret_cast<char*>(&v), sizeof v);
  }
  bool get_bytes(char* dst, size_t n) {
    if (n > remaining()) return false;
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  size_t pos_ = 0;
};

class FileReader {
 public:
  FileReader(std::ifstream& in, size_t size) : in_(in), left_(size) {}
  template <class T>
  bool get(T& v) {
    return get_bytes(reinterpret_cast<char*>(&v), sizeof v);
  }
  bool get_bytes(char* dst, size_t n) {
    if (n > left_ || !in_.read(dst, std::streamsize(n))) return false;
    left_ -= n;
    return true;
  }
  size_t remaining() const { return left_; }

 private:
  std::ifstream& in_;
  size_t left_;
};

template <class Reader>
std::optional<tensor::Array> decode_one(Reader& r) {
  uint8_t name_len = 0, ndim = 0;
  if (!r.get(name_len)) return std::nullopt;
  std::string name(name_len, '\0');
  if (!r.get_bytes(name.data(), name_len)) return std::nullopt;
  auto dtype = tensor::parse_dtype(name);
  if (!dtype || !r.get(ndim)) return std::nullopt;
  tensor::Shape shape(ndim);
  size_t elements = 1;
  for (auto& d : shape) {
    if (!r.get(d) || d < 0) return std::nullopt;
    if (d != 0 && elements > r.remaining() / size_t(d)) return std::nullopt;  // more than the file holds
    elements *= size_t(d);
  }
  size_t bytes = elements * storage_bytes(*dtype);
  if (bytes > r.remaining()) return std::nullopt;  // checked before allocating
  tensor::Array a = tensor::Array::empty(shape, *dtype);
  if (!r.get_bytes(const_cast<char*>(raw_data(a)), bytes)) return std::nullopt;
  return a;
}

// Magic and compute seconds; false for a file of another format.
template <class Reader>
bool read_prefix(Reader& r, double& compute_seconds) {
  char magic[sizeof kMagic];
  return r.get_bytes(magic, sizeof magic) && std::memcmp(magic, kMagic, sizeof kMagic) == 0 && r.get(compute_seconds);
}

// The narrow float formats forward() computed in: u8 count, then each dtype's name.
template <class Reader>
bool read_formats(Reader& r, std::vector<tensor::DType>* formats) {
  uint8_t n = 0;
  if (!r.get(n)) return false;
  for (uint8_t i = 0; i < n; ++i) {
    uint8_t len = 0;
    if (!r.get(len)) return false;
    std::string name(len, '\0');
    if (!r.get_bytes(name.data(), len)) return false;
    auto dtype = tensor::parse_dtype(name);
    if (!dtype) return false;
    if (formats) formats->push_back(*dtype);
  }
  return true;
}

template <class Reader>
std::optional<std::vector<tensor::Array>> decode_from(Reader& r, std::vector<tensor::DType>* formats) {
  double compute_seconds = 0;
  uint32_t count = 0;
  if (!read_prefix(r, compute_seconds) || !read_formats(r, formats) || !r.get(count)) return std::nullopt;
  std::vector<tensor::Array> arrays;
  for (uint32_t i = 0; i < count; ++i) {
    auto a = decode_one(r);
    if (!a) return std::nullopt;
    arrays.push_back(std::move(*a));
  }
  if (r.remaining() != 0) return std::nullopt;
  return arrays;
}

// Everything of one array but its element data.
std::string array_header(const tensor::Array& a) {
  std::string out;
  std::string_view name = tensor::name(a.dtype());
  put<uint8_t>(out, uint8_t(name.size()));
  out.append(name);
  put<uint8_t>(out, uint8_t(a.ndim()));
  for (int64_t d : a.shape()) put<int64_t>(out, d);
  return out;
}

size_t data_bytes(const tensor::Array& a) { return size_t(a.size()) * storage_bytes(a.dtype()); }

// Magic, compute seconds, forward's narrow formats and array count.
std::string file_header(double compute_seconds, const std::vector<tensor::DType>& formats, size_t count) {
  std::string out(kMagic, sizeof kMagic);
  put<double>(out, compute_seconds);
  put<uint8_t>(out, uint8_t(formats.size()));
  for (tensor::DType d : formats) {
    std::string_view name = tensor::name(d);
    put<uint8_t>(out, uint8_t(name.size()));
    out.append(name);
  }
  put<uint32_t>(out, uint32_t(count));
  return out;
}

// The compute seconds a cache file records; 0 for a file of another format (worth nothing).
double recorded_seconds(const fs::path& path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  FileReader r(in, size_t(size));
  double seconds = 0;
  return read_prefix(r, seconds) ? seconds : 0;
}

}  // namespace

std::string encode_arrays(const std::vector<tensor::Array>& arrays, double compute_seconds,
                          const std::vector<tensor::DType>& formats) {
  std::string out = file_header(compute_seconds, formats, arrays.size());
  for (const auto& array : arrays) {
    tensor::Array a = array.contiguous();
    out += array_header(a);
    if (a.size() > 0) out.append(raw_data(a), data_bytes(a));
  }
  return out;
}

std::optional<std::vector<tensor::Array>> decode_arrays(const std::string& bytes, std::vector<tensor::DType>* formats) {
  StringReader r(bytes);
  return decode_from(r, formats);
}

std::string default_ref_cache_dir() {
  if (const char* d = std::getenv("ACCELOPT_CACHE_DIR"); d && *d) return (fs::path(d) / "refs").string();
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return (fs::path(d) / "accelopt" / "refs").string();
  if (const char* d = std::getenv("HOME"); d && *d) return (fs::path(d) / ".cache" / "accelopt" / "refs").string();
  return "";
}

RefCachePolicy RefCachePolicy::from_env() {
  RefCachePolicy p;
  if (const char* mb = std::getenv("ACCELOPT_REF_CACHE_MAX_MB"); mb && *mb) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(mb, &end, 10);
    if (end && *end == '\0') p.max_bytes = uint64_t(v) << 20;
  }
  return p;
}

std::string RefCache::path_for(const std::string& ref_hash, int seed) const {
  return (fs::path(dir_) / fmt::format("{}-s{}.ref", ref_hash, seed)).string();
}

std::optional<std::vector<tensor::Array>> RefCache::load(const std::string& ref_hash, int seed,
                                                          std::vector<tensor::DType>* formats) const {
  if (!enabled()) return std::nullopt;
  std::string path = path_for(ref_hash, seed);
  std::error_code ec;
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  FileReader r(in, size_t(size));
  return decode_from(r, formats);
}

bool RefCache::worth_storing(uint64_t bytes, double compute_seconds) const {
  if (!enabled() || bytes > policy_.max_bytes) return false;
  if (compute_seconds < 2.0 * double(bytes) / policy_.read_bytes_per_second) return false;
  std::error_code ec;
  fs::path probe = fs::exists(dir_, ec) ? fs::path(dir_) : fs::path(dir_).parent_path();
  fs::space_info space = fs::space(probe.empty() ? fs::path(".") : probe, ec);
  return ec || bytes <= space.available / 2;  // unknown free space: the write itself may fail
}

bool RefCache::make_room(uint64_t bytes, double seconds_per_byte) const {
  struct Entry {
    double seconds_per_byte;
    uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".ref") continue;
    std::error_code e2;
    uint64_t size = it->file_size(e2);
    if (e2) continue;
    entries.push_back({size ? recorded_seconds(it->path(), size) / double(size) : 0, size, it->path()});
    total += size;
  }
  if (total + bytes <= policy_.max_bytes) return true;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.seconds_per_byte < b.seconds_per_byte; });
  uint64_t evictable = 0;
  size_t n = 0;
  while (n < entries.size() && entries[n].seconds_per_byte < seconds_per_byte &&
         total - evictable + bytes > policy_.max_bytes)
    evictable += entries[n++].size;
  if (total - evictable + bytes > policy_.max_bytes) return false;  // the new file is worth less
  for (size_t i = 0; i < n; ++i) fs::remove(entries[i].path, ec);
  return true;
}

// The arrays go to the file directly (a full-size bmm output is 1 GiB: no second copy in memory).
void RefCache::store(const std::string& ref_hash, int seed, const std::vector<tensor::Array>& outputs,
                     double compute_seconds, const std::vector<tensor::DType>& formats) const {
  uint64_t bytes = 0;
  for (const auto& a : outputs) bytes += data_bytes(a);
  if (!worth_storing(bytes, compute_seconds)) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!make_room(bytes, compute_seconds / double(std::max<uint64_t>(bytes, 1)))) return;
  std::string final_path = path_for(ref_hash, seed);
  try {
    base::write_file_atomic_streamed(final_path, [&](const base::ChunkSink& sink) {
      sink(file_header(compute_seconds, formats, outputs.size()));
      for (const auto& array : outputs) {
        tensor::Array a = array.contiguous();
        sink(array_header(a));
        if (a.size() > 0) sink(std::string_view(raw_data(a), data_bytes(a)));
      }
    });
  } catch (const std::runtime_error&) {
    // Best effort (see the header): the reference is computed again next time.
  }
}

}  // namespace eval
