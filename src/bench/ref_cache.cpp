#include "bench/ref_cache.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <fmt/core.h>

#include "tensor/dtype.h"

namespace bench {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'A', 'O', 'R', 'E', 'F', '0', '0', '1'};

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

template <class Reader>
std::optional<std::vector<tensor::Array>> decode_from(Reader& r) {
  char magic[sizeof kMagic];
  uint32_t count = 0;
  if (!r.get_bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 || !r.get(count))
    return std::nullopt;
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

}  // namespace

uint64_t content_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

std::string encode_arrays(const std::vector<tensor::Array>& arrays) {
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, uint32_t(arrays.size()));
  for (const auto& array : arrays) {
    tensor::Array a = array.contiguous();
    out += array_header(a);
    if (a.size() > 0) out.append(raw_data(a), data_bytes(a));
  }
  return out;
}

std::optional<std::vector<tensor::Array>> decode_arrays(const std::string& bytes) {
  StringReader r(bytes);
  return decode_from(r);
}

std::string default_ref_cache_dir() {
  if (const char* d = std::getenv("ACCELOPT_CACHE_DIR"); d && *d) return (fs::path(d) / "refs").string();
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return (fs::path(d) / "accelopt" / "refs").string();
  if (const char* d = std::getenv("HOME"); d && *d) return (fs::path(d) / ".cache" / "accelopt" / "refs").string();
  return "";
}

std::string RefCache::path_for(uint64_t ref_hash, int seed) const {
  return (fs::path(dir_) / fmt::format("{:016x}-s{}.ref", ref_hash, seed)).string();
}

std::optional<std::vector<tensor::Array>> RefCache::load(uint64_t ref_hash, int seed) const {
  if (!enabled()) return std::nullopt;
  std::string path = path_for(ref_hash, seed);
  std::error_code ec;
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  FileReader r(in, size_t(size));
  return decode_from(r);
}

// The arrays go to the file directly (a full-size bmm output is 1 GiB: no second copy in memory).
void RefCache::store(uint64_t ref_hash, int seed, const std::vector<tensor::Array>& outputs) const {
  if (!enabled()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string final_path = path_for(ref_hash, seed);
  std::string tmp = fmt::format("{}.tmp{}", final_path, ::getpid());
  bool ok = false;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) {
      std::string head(kMagic, sizeof kMagic);
      put<uint32_t>(head, uint32_t(outputs.size()));
      out.write(head.data(), std::streamsize(head.size()));
      for (const auto& array : outputs) {
        tensor::Array a = array.contiguous();
        std::string header = array_header(a);
        out.write(header.data(), std::streamsize(header.size()));
        if (a.size() > 0) out.write(raw_data(a), std::streamsize(data_bytes(a)));
      }
      out.flush();
      ok = bool(out);
    }
  }
  if (ok) fs::rename(tmp, final_path, ec);
  if (!ok || ec) fs::remove(tmp, ec);
}

}  // namespace bench
