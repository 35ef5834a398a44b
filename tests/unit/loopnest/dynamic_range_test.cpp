// nl.dynamic_range (the newer API's register-driven runtime loop, NKI 0.2-0.5; nki-language.md 5
// and 12.1): the interpreter runs it in order, as a sequential_range; the loop-nest form lifts it
// as a sequential loop that remembers its name, so the kernel prints back as written and a
// regenerated header still says dynamic_range. It was refused ("cannot lift the call of
// 'nl.dynamic_range'").
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

TEST(LoopNestDynamicRange, LiftsAsASequentialLoopKeepingItsName) {
  const std::string path = source_dir() + "/tests/kernels/corpus/new_dynamic_range_prefix.py";
  const std::string text = read(path);
  loopnest::ArgSpec x;
  x.shape = {3, 128, 48};
  x.dtype = "float32";
  loopnest::Kernel k = loopnest::lift_source(path, text, {x});
  ASSERT_EQ(k.loops.size(), 1u);
  EXPECT_EQ(k.loops[0].kind, loopnest::LoopKind::Sequential);
  EXPECT_TRUE(k.loops[0].dynamic);
  EXPECT_EQ(k.loops[0].trip(), 3);
  EXPECT_EQ(loopnest::emit(k), text);
  std::string regenerated = loopnest::emit(k, {.regenerate = true});
  EXPECT_NE(regenerated.find("for i in nl.dynamic_range(3):"), std::string::npos) << regenerated;
  // The running sum is carried from one iteration to the next: no site makes the loop affine.
  for (const auto& site : loopnest::find_sites(k)) EXPECT_NE(site.key().rfind("affine_loop", 0), 0u) << site.key();
}

}  // namespace
