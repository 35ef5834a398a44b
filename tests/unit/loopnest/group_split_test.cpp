// The head loop of grouped-query attention split by group (group_split.cpp): a loop read whole
// (`q[h]`) and as `h // GROUP` (the KV head) runs `for kv: for g:`, and the hoists that then take
// the KV head's loads (and K's transpose) out of the group loop are offered as one site with the
// parameter groups=split. That each such site keeps the kernel's outputs is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's; the printed kernels are
// GoldenRewrites' (group_query_tiles*.{hoist_expand,hoist_transpose}_groups).
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

const auto kArgs = arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}});

std::vector<loopnest::Site> grouped_sites(const std::string& path, const std::string& text,
                                          const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.params.count("groups")) out.push_back(s);
  return out;
}

// K and V loaded per query head and query tile (4 heads x 2 tiles = 8 loads each) are loaded once
// per KV head (2) after one move each, in the legacy and the newer API; q's loads stay 8.
TEST(GroupSplit, TheQueryHeadsOfAGroupShareTheKvHeadsLoadsInEveryStyle) {
  for (const char* name : {"group_query_tiles.py", "group_query_tiles_api.py"}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    std::string text = read(path);
    ASSERT_EQ(loads_of(text, kArgs, 1), 8) << name;
    for (size_t param : {1, 2}) {
      const loopnest::Site* hoist = nullptr;
      // The first move splits the head loop (groups=split); the second finds it split.
      auto sites = param == 1 ? grouped_sites(path, text, kArgs)
                              : loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
      for (const auto& s : sites)
        if (s.transform == "hoist_expand" && s.params.at("out_of") == "2" && !hoist) {
          std::string after = loopnest::apply_site(path, text, kArgs, s);
          if (loads_of(after, kArgs, param) == 2) hoist = &s;
        }
      ASSERT_TRUE(hoist) << name << ": no groups=split hoist of argument " << param;
      text = loopnest::apply_site(path, text, kArgs, *hoist);
      EXPECT_EQ(loads_of(text, kArgs, 0), 8) << text;
    }
    EXPECT_EQ(loads_of(text, kArgs, 1), 2) << text;
    EXPECT_EQ(loads_of(text, kArgs, 2), 2) << text;
    // The split is printed with the author's names: the KV head's binding names the outer loop.
    EXPECT_NE(text.find(std::string("for ") + (name[17] == '.' ? "kv_h" : "kv") + " in nl.affine_range(QH // "),
              std::string::npos)
        << text;
  }
}

// The K tile rescaled per query head in place is written inside the group loop: no hoist of K
// leaves it (hoist_expand: its tile has another writer), while V's load still does.
TEST(GroupSplit, ATileTheGroupWouldShareButWritesPerHeadStays) {
  const std::string path = source_dir() + "/tests/kernels/group_query_tiles_rescaled.py";
  const std::string text = read(path);
  const auto args = arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}, {4, 128, 1}});
  bool v_hoisted = false;
  for (const auto& s : grouped_sites(path, text, args)) {
    std::string after = loopnest::apply_site(path, text, args, s);
    EXPECT_EQ(loads_of(after, args, 1), 8) << s.key() << "\n" << after;
    v_hoisted = v_hoisted || loads_of(after, args, 2) == 2;
  }
  EXPECT_TRUE(v_hoisted);
}

// The K head read as `(h + 1) // GROUP` varies inside any split of the head loop by GROUP: K's load
// never leaves a group loop (V's, read as `h // GROUP`, may).
TEST(GroupSplit, AQuotientThatVariesWithinTheGroupSplitsNothing) {
  const std::string path = source_dir() + "/tests/kernels/group_query_tiles_shifted.py";
  const auto args = arrays({{4, 256, 64}, {3, 128, 64}, {3, 128, 64}});
  const std::string text = read(path);
  for (const auto& s : grouped_sites(path, text, args)) {
    std::string after = loopnest::apply_site(path, text, args, s);
    EXPECT_EQ(loads_of(after, args, 1), 8) << s.key() << "\n" << after;
  }
}

}  // namespace
