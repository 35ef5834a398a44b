// free_size (src/loopnest/free_size.cpp) changes a block's trip and the trips inside it; a binding
// computed from those loops (`t = t_blk * 4 + t_in`, as fuse_nests in blocks writes it) would keep
// the old block size in its text, a wrong `t` for any later move that prints it. It is dropped and
// what named it prints from the form (unflatten's print_over_new_loops). That the site keeps the
// kernel's result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

TEST(FreeSize, DropsABindingOfTheLoopsWhoseTripsChange) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_blocked_binding.py";
  std::string text = read(path);
  auto args = arrays({{4096, 512}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  int applied = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "free_size") continue;
    std::string after = loopnest::apply_site(path, text, args, s);
    EXPECT_EQ(after.find("t = t_blk", after.find("def kernel")), std::string::npos) << s.key() << "\n" << after;
    EXPECT_NE(after.find("nl.load(x["), std::string::npos) << after;
    ++applied;
  }
  EXPECT_EQ(applied, 2);  // 256 and 1024 rows per block
}

}  // namespace
