// A newer-API `flatten_dims` of a whole HBM tensor is the reshape merging those dims (row-major
// storage is contiguous), so the merged range is one affine axis that `reshape_dim` may cut into
// chunks straddling the rows of the last dim (lift_views.cpp). Per storage dim the merged index
// was quasi-affine and such chunks were refused ("reshape_dim of a quasi-affine axis"). A tile's
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

}  // namespace
