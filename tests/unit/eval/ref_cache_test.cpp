// Reference-output cache: round trip, key separation, and corrupt files treated as misses.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/content_hash.h"
#include "eval/ref_cache.h"

namespace fs = std::filesystem;

namespace {

TEST(RefCache, EncodeDecodeRoundTrip) {
  auto a = tensor::Array::from_values({2, 3}, tensor::DType::Float32, {1, 2, 3, 4, 5, 6.5});
  auto b = tensor::Array::from_values({}, tensor::DType::Float64, {0.125});
  auto decoded = eval::decode_arrays(eval::encode_arrays({a, b}));
  ASSERT_TRUE(decoded);
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].shape(), (tensor::Shape{2, 3}));
  EXPECT_EQ((*decoded)[0].dtype(), tensor::DType::Float32);
  EXPECT_FLOAT_EQ((*decoded)[0].get({1, 2}), 6.5f);
  EXPECT_EQ((*decoded)[1].dtype(), tensor::DType::Float64);
  EXPECT_DOUBLE_EQ((*decoded)[1].item(), 0.125);
}

// forward()'s narrow float formats travel with its outputs (the precision check needs them on a hit).
TEST(RefCache, TheFormatsForwardComputedInRoundTrip) {
  auto a = tensor::Array::from_values({2}, tensor::DType::Float32, {1, 2});
  std::vector<tensor::DType> formats;
  auto decoded = eval::decode_arrays(
      eval::encode_arrays({a}, 0.5, {tensor::DType::Float8E4M3, tensor::DType::BFloat16}), &formats);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->size(), 1u);
  EXPECT_EQ(formats, (std::vector<tensor::DType>{tensor::DType::Float8E4M3, tensor::DType::BFloat16}));
  formats.clear();
  ASSERT_TRUE(eval::decode_arrays(eval::encode_arrays({a}), &formats));
  EXPECT_TRUE(formats.empty());
}

TEST(RefCache, TruncatedOrForeignBytesAreRejected) {
  auto a = tensor::Array::from_values({4}, tensor::DType::Float32, {1, 2, 3, 4});
  std::string bytes = eval::encode_arrays({a});
  EXPECT_FALSE(eval::decode_arrays(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(eval::decode_arrays(bytes + "x"));
  EXPECT_FALSE(eval::decode_arrays("not a cache file"));
  EXPECT_FALSE(eval::decode_arrays(""));
}

// A header that claims more elements than the bytes that follow is rejected before anything is
// allocated (a corrupt shape must not become a huge allocation).
TEST(RefCache, ShapeLargerThanTheDataIsRejected) {
  auto a = tensor::Array::from_values({4}, tensor::DType::Float32, {1, 2, 3, 4});
  std::string bytes = eval::encode_arrays({a});
  // magic(8) compute_seconds(8) count(4) name_len(1) "float32"(7) ndim(1), then the i64 dimension.
  size_t dim_at = 8 + 8 + 4 + 1 + 7 + 1;
  int64_t huge = int64_t{1} << 50;
  bytes.replace(dim_at, sizeof huge, reinterpret_cast<const char*>(&huge), sizeof huge);
  tensor::AllocationBudget budget(1 << 20);  // an attempt to allocate would throw here
  EXPECT_FALSE(eval::decode_arrays(bytes));
}

// Several arrays of mixed storages through the file path (streamed in and out, no staging copy).
TEST(RefCache, StoresSeveralArraysThroughTheFile) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_refcache_multi_" + std::to_string(::getpid()));
  eval::RefCache cache(dir.string());
  auto a = tensor::Array::full({300, 70}, tensor::DType::Float32, 1.5);
  auto b = tensor::Array::from_values({3}, tensor::DType::Int64, {-1, 0, 7});
  auto view = tensor::Array::from_values({2, 2}, tensor::DType::Float64, {1, 2, 3, 4});
  auto transposed = view.view({2, 2}, {1, 2}, 0);  // non-contiguous: stored in C order
  cache.store("42", 0, {a, b, transposed});
  auto hit = cache.load("42", 0);
  ASSERT_TRUE(hit);
  ASSERT_EQ(hit->size(), 3u);
  EXPECT_EQ((*hit)[0].shape(), (tensor::Shape{300, 70}));
  EXPECT_EQ((*hit)[0].get({299, 69}), 1.5);
  EXPECT_EQ((*hit)[1].get({0}), -1);
  EXPECT_EQ((*hit)[1].get({2}), 7);
  EXPECT_EQ((*hit)[2].get({0, 1}), 3);
  EXPECT_EQ((*hit)[2].get({1, 0}), 2);
  fs::remove_all(dir);
}

TEST(RefCache, StoreLoadBySeedAndHash) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_refcache_" + std::to_string(::getpid()));
  eval::RefCache cache(dir.string());
  auto a = tensor::Array::from_values({2}, tensor::DType::Float32, {1, 2});
  std::string h = base::content_hash("def forward(): pass");
  EXPECT_NE(h, base::content_hash("def forward(): pass "));
  EXPECT_FALSE(cache.load(h, 0));
  cache.store(h, 0, {a});
  auto hit = cache.load(h, 0);
  ASSERT_TRUE(hit);
  EXPECT_FLOAT_EQ((*hit)[0].get({1}), 2.0f);
  EXPECT_FALSE(cache.load(h, 21));
  EXPECT_FALSE(cache.load(base::content_hash("def forward(): return 1"), 0));
  std::ofstream(cache.path_for(h, 0), std::ios::trunc) << "garbage";
  EXPECT_FALSE(cache.load(h, 0));
  fs::remove_all(dir);
  EXPECT_FALSE(eval::RefCache("").enabled());
}

// Outputs that are quicker to recompute than to read back are not written (bmm's 1 GiB output).
TEST(RefCache, CheapOutputsAreNotStored) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_refcache_cheap_" + std::to_string(::getpid()));
  eval::RefCache cache(dir.string(), eval::RefCachePolicy{uint64_t{1} << 30, 1e9});
  auto a = tensor::Array::full({1000, 1000}, tensor::DType::Float32, 1.0);  // 4 MB: 4 ms to read
  cache.store("1", 0, {a}, 0.001);
  EXPECT_FALSE(cache.load("1", 0));
  cache.store("1", 0, {a}, 0.5);
  EXPECT_TRUE(cache.load("1", 0));
  EXPECT_FALSE(cache.worth_storing(uint64_t{2} << 30, 1e6));  // larger than the whole cap
  fs::remove_all(dir);
}

// The directory stays under its cap by evicting the files that save the fewest seconds per byte,
// and only for a file worth more than they are.
TEST(RefCache, EvictsTheLeastValuableToStayUnderTheCap) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_refcache_cap_" + std::to_string(::getpid()));
  auto a = tensor::Array::full({100, 100}, tensor::DType::Float32, 2.0);  // 40 kB per file
  uint64_t file_bytes = eval::encode_arrays({a}).size();
  eval::RefCache cache(dir.string(), eval::RefCachePolicy{2 * file_bytes + 100, 1e9});
  cache.store("1", 0, {a}, 3.0);
  cache.store("2", 0, {a}, 1.0);
  cache.store("3", 0, {a}, 0.5);  // worth less than both: not stored
  EXPECT_TRUE(fs::exists(cache.path_for("1", 0)));
  EXPECT_TRUE(fs::exists(cache.path_for("2", 0)));
  EXPECT_FALSE(fs::exists(cache.path_for("3", 0)));
  cache.store("4", 0, {a}, 2.0);  // worth more than 2: 2 goes
  EXPECT_TRUE(fs::exists(cache.path_for("1", 0)));
  EXPECT_FALSE(fs::exists(cache.path_for("2", 0)));
  EXPECT_TRUE(fs::exists(cache.path_for("4", 0)));
  auto hit = cache.load("4", 0);
  ASSERT_TRUE(hit);
  EXPECT_EQ((*hit)[0].get({99, 99}), 2.0);
  fs::remove_all(dir);
}

TEST(RefCache, SizeCapComesFromTheEnvironment) {
  ::setenv("ACCELOPT_REF_CACHE_MAX_MB", "12", 1);
  EXPECT_EQ(eval::RefCachePolicy::from_env().max_bytes, uint64_t{12} << 20);
  ::setenv("ACCELOPT_REF_CACHE_MAX_MB", "lots", 1);
  EXPECT_EQ(eval::RefCachePolicy::from_env().max_bytes, uint64_t{4096} << 20);
  ::unsetenv("ACCELOPT_REF_CACHE_MAX_MB");
}

}  // namespace
