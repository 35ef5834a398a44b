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

// Sequential reader over the encoded bytes; every read is bounds-checked.
class Reader {
 public:
  explicit Reader(const std::string& b) : bytes_(b) {}
  template <class T>
  bool get(T& v) {
    if (pos_ + sizeof v > bytes_.size()) return false;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool get_bytes(char* dst, size_t n) {
    if (n > bytes_.size() - pos_) return false;
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  size_t pos_ = 0;
};

std::optional<tensor::Array> decode_one(Reader& r) {
  uint8_t name_len = 0, ndim = 0;
  if (!r.get(name_len)) return std::nullopt;
  std::string name(name_len, '\0');
  if (!r.get_bytes(name.data(), name_len)) return std::nullopt;
  auto dtype = tensor::parse_dtype(name);
  if (!dtype || !r.get(ndim)) return std::nullopt;
  tensor::Shape shape(ndim);
  for (auto& d : shape)
    if (!r.get(d) || d < 0) return std::nullopt;
  tensor::Array a = tensor::Array::zeros(shape, *dtype);
  if (!r.get_bytes(const_cast<char*>(raw_data(a)), size_t(a.size()) * storage_bytes(*dtype))) return std::nullopt;
  return a;
}

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
    std::string_view name = tensor::name(a.dtype());
    put<uint8_t>(out, uint8_t(name.size()));
    out.append(name);
    put<uint8_t>(out, uint8_t(a.ndim()));
    for (int64_t d : a.shape()) put<int64_t>(out, d);
    if (a.size() > 0) out.append(raw_data(a), size_t(a.size()) * storage_bytes(a.dtype()));
  }
  return out;
}

std::optional<std::vector<tensor::Array>> decode_arrays(const std::string& bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  Reader r(bytes);
  char magic[sizeof kMagic];
  uint32_t count = 0;
  if (!r.get_bytes(magic, sizeof magic) || !r.get(count)) return std::nullopt;
  std::vector<tensor::Array> arrays;
  for (uint32_t i = 0; i < count; ++i) {
    auto a = decode_one(r);
    if (!a) return std::nullopt;
    arrays.push_back(std::move(*a));
  }
  if (!r.at_end()) return std::nullopt;
  return arrays;
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
  std::ifstream in(path_for(ref_hash, seed), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return decode_arrays(ss.str());
}

void RefCache::store(uint64_t ref_hash, int seed, const std::vector<tensor::Array>& outputs) const {
  if (!enabled()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string final_path = path_for(ref_hash, seed);
  std::string tmp = fmt::format("{}.tmp{}", final_path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    std::string bytes = encode_arrays(outputs);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) return;
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace bench
