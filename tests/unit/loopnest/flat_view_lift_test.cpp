// Axes walking consecutive dims of an HBM tensor, each with stride 1 and all but the first over its
// whole extent, walk one contiguous range (row-major storage): a newer-API `flatten_dims` of them,
// or a legacy `reshape` of such a part (`x[b].reshape((128, 256))`), is one affine axis of a view
// of the tensor with those dims merged, which `reshape_dim` may cut anywhere (lift_views.cpp
// contiguous_merge). Per storage dim the merged index was quasi-affine and such splits were refused
// ("reshape_dim of a quasi-affine axis"). A tile's
// flatten keeps its per-dim terms (the partition dim is not contiguous with the free dims):
// LoopNestCorpus.ViewMethodsLiftAsTheSubscriptsTheyAre.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

// (128, 4, 384) fp32: 1536 elements per partition, cut in three chunks of 512 (each crossing a row).
const std::vector<loopnest::ArgSpec> kArgs = arrays({{128, 4, 384}});

std::string dump_of(const std::string& name) {
  const std::string path = source_dir() + "/tests/kernels/" + name;
  return loopnest::dump(loopnest::lift_source(path, read(path), kArgs));
}

TEST(FlatViewLift, ChunksOfAFlattenedTensorAreAffineOverItsReshape) {
  const std::string d = dump_of("flat_row_chunks_api.py");
  EXPECT_NE(d.find("tensor %1: hbm float32[128, 1536] view of x"), std::string::npos) << d;
  EXPECT_NE(d.find("nisa.dma_copy(src=%1[a0[128], 512*c + a1[512]])"), std::string::npos) << d;
  EXPECT_NE(d.find("nisa.dma_copy(dst=%2[a0[128], 512*c + a1[512]], src=y)"), std::string::npos) << d;
  // The same elements spelled as slices of a reshape: the same form.
  EXPECT_EQ(d, dump_of("flat_row_chunks_reshape_api.py"));
}

TEST(FlatViewLift, EverySiteOfTheChunkedViewKeepsTheResult) {
  for (const char* name : {"flat_row_chunks_api.py", "flat_row_chunks_reshape_api.py"}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 1u) << name;
  }
}

TEST(FlatViewLift, AContiguousPartOfATensorReshapedIsOneAffineAxis) {
  const std::string path = source_dir() + "/tests/kernels/part_reshape_rows.py";
  const std::string text = read(path);
  const auto args = arrays({{2, 4, 32, 256}});
  const std::string d = loopnest::dump(loopnest::lift_source(path, text, args));
  EXPECT_NE(d.find("tensor %1: hbm float32[2, 32768] view of x"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.load(src=%1[b, 256*a0[128] + a1[256]])"), std::string::npos) << d;
  EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, text, args), 2u);
  // The first merged dim may be a part of its extent (rows 2h..2h+1 of 4): the range starts inside it.
  const std::string halves = source_dir() + "/tests/kernels/part_reshape_halves.py";
  const std::string h = loopnest::dump(loopnest::lift_source(halves, read(halves), args));
  EXPECT_NE(h.find("nl.load(src=%1[b, 16384*h + 256*a0[64] + a1[256]])"), std::string::npos) << h;
  EXPECT_GE(loopnest_test::expect_every_site_keeps_result(halves, read(halves), args), 2u);
}

}  // namespace
