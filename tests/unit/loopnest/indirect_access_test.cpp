// A kernel with an indirect (index-tile) DMA: its rows are read from a tile at run time, so the
// access has no affine form. The lift refuses it by name, with the caret on the subscript, for
// every spelling (a legacy gather, an atomic scatter-add), and never crashes.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

loopnest::ArgSpec array(std::vector<int64_t> shape, std::string dtype = "float32") {
  loopnest::ArgSpec a;
  a.shape = std::move(shape);
  a.dtype = std::move(dtype);
  return a;
}

std::string lift_error(const std::string& name, const std::vector<loopnest::ArgSpec>& args) {
  const std::string path = source_dir() + "/tests/kernels/" + name;
  try {
    loopnest::lift_source(path, read(path), args);
  } catch (const loopnest::LiftError& e) {
    return e.render();
  }
  return "";
}

TEST(LoopNestLift, AnIndirectGatherIsRefusedByNameAtItsSubscript) {
  std::string err = lift_error("gather_rows.py", {array({300, 64}), array({256, 1}, "int32")});
  EXPECT_NE(err.find("'table[idx[i_p, 0], i_f]': an indirect (index-tile) access"), std::string::npos) << err;
  EXPECT_NE(err.find("gather_rows.py:15:"), std::string::npos) << err;
  EXPECT_NE(err.find("^~"), std::string::npos) << err;
}

TEST(LoopNestLift, AnIndirectScatterAddIsRefusedByNameAtItsSubscript) {
  std::string err =
      lift_error("scatter_add_rows.py", {array({256, 32}), array({256, 32}), array({256, 1}, "int32")});
  EXPECT_NE(err.find("'out[idx[i_p, 0], i_f]': an indirect (index-tile) access"), std::string::npos) << err;
}

}  // namespace
