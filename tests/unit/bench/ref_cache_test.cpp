// Reference-output cache: round trip, key separation, and corrupt files treated as misses.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "bench/ref_cache.h"

namespace fs = std::filesystem;

namespace {

TEST(RefCache, EncodeDecodeRoundTrip) {
  auto a = tensor::Array::from_values({2, 3}, tensor::DType::Float32, {1, 2, 3, 4, 5, 6.5});
  auto b = tensor::Array::from_values({}, tensor::DType::Float64, {0.125});
  auto decoded = bench::decode_arrays(bench::encode_arrays({a, b}));
  ASSERT_TRUE(decoded);
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].shape(), (tensor::Shape{2, 3}));
  EXPECT_EQ((*decoded)[0].dtype(), tensor::DType::Float32);
  EXPECT_FLOAT_EQ((*decoded)[0].get({1, 2}), 6.5f);
  EXPECT_EQ((*decoded)[1].dtype(), tensor::DType::Float64);
  EXPECT_DOUBLE_EQ((*decoded)[1].item(), 0.125);
}

TEST(RefCache, TruncatedOrForeignBytesAreRejected) {
  auto a = tensor::Array::from_values({4}, tensor::DType::Float32, {1, 2, 3, 4});
  std::string bytes = bench::encode_arrays({a});
  EXPECT_FALSE(bench::decode_arrays(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(bench::decode_arrays(bytes + "x"));
  EXPECT_FALSE(bench::decode_arrays("not a cache file"));
  EXPECT_FALSE(bench::decode_arrays(""));
}

TEST(RefCache, StoreLoadBySeedAndHash) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_refcache_" + std::to_string(::getpid()));
  bench::RefCache cache(dir.string());
  auto a = tensor::Array::from_values({2}, tensor::DType::Float32, {1, 2});
  uint64_t h = bench::content_hash("def forward(): pass");
  EXPECT_NE(h, bench::content_hash("def forward(): pass "));
  EXPECT_FALSE(cache.load(h, 0));
  cache.store(h, 0, {a});
  auto hit = cache.load(h, 0);
  ASSERT_TRUE(hit);
  EXPECT_FLOAT_EQ((*hit)[0].get({1}), 2.0f);
  EXPECT_FALSE(cache.load(h, 21));
  EXPECT_FALSE(cache.load(h + 1, 0));
  std::ofstream(cache.path_for(h, 0), std::ios::trunc) << "garbage";
  EXPECT_FALSE(cache.load(h, 0));
  fs::remove_all(dir);
  EXPECT_FALSE(bench::RefCache("").enabled());
}

}  // namespace
