// retile_flat (src/loopnest/retile_flat.cpp): an elementwise nest on tiles of P < 128 partitions
// that covers its tensors exactly once walks flat (n, 128, W2) views of them in one loop. A momentum
// update streamed in (96, 256) tiles in three styles (tests/kernels/momentum_rows96_{tiles,grid,
// api}.py) offers the same site; applied, the kernel computes the same result with every tile on
// 128 partitions, printed in the kernel's own dialect. A per-partition operand, a reduction,
// tensors of different shapes, a nest covering part of its tensors and tiles already on 128
// partitions are refused.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::replace;
using loopnest_test::replace_all;
using loopnest_test::run;
using loopnest_test::source_dir;

std::string kernel_path(const std::string& style) {
  return source_dir() + "/tests/kernels/momentum_rows96_" + style + ".py";
}
std::string kernel_text(const std::string& style) { return read(kernel_path(style)); }

// theta, grad, mom (192, 512): 2 x 2 tiles of (96, 256); 98304 elements = 3 tiles of (128, 256).
const std::vector<loopnest::ArgSpec> kArgs = arrays({{192, 512}, {192, 512}, {192, 512}});

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args = kArgs) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "retile_flat") out.push_back(s);
  return out;
}

// The partition counts of the on-chip tiles the kernel's loads fill and its instructions write.
std::set<int64_t> tile_partitions(const std::string& text, const std::vector<loopnest::ArgSpec>& args = kArgs) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  std::set<int64_t> out;
  for (const auto& r : an.ops) {
    const auto& op = r.op();
    if (loopnest::is_declaration(op)) continue;
    if (op.result >= 0) out.insert(k.tensor(op.result).shape.at(0).constant());
    else if (op.dst && k.tensor(loopnest::storage_of(k, op.dst->tensor)).on_chip())
      out.insert(op.dst->tile_shape().at(0).constant());
  }
  return out;
}

TEST(RetileFlat, FindsTheSameSiteInEveryStyleAndKeepsTheResult) {
  std::string first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = sites_of(text);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    // 96 * 256 / 128 = 192 columns is the same work per tile; 256 divides the rows' 512 and keeps
    // each partition's run at 1 KiB, the author's.
    EXPECT_EQ(sites[0].params.at("width"), "256");
    EXPECT_TRUE(sites[0].relieves.count("dma"));
    EXPECT_TRUE(sites[0].relieves.count("dve") || sites[0].relieves.count("act"));
    EXPECT_EQ(tile_partitions(text), (std::set<int64_t>{96}));
    std::string after = loopnest::apply_site(kernel_path(style), text, kArgs, sites[0]);
    EXPECT_EQ(tile_partitions(after), (std::set<int64_t>{128})) << after;
    EXPECT_LT(rel_error(run(kernel_path(style), after, kArgs), run(kernel_path(style), text, kArgs)), 1e-6) << after;
    EXPECT_TRUE(sites_of(after).empty()) << after;
    std::cout << after;
  }
}

}  // namespace
