// A site applied from its key (the agent's and `rewrite --apply`'s way: no node id, the anchor and
// the line) is the site listed. Two loops of one nest share their anchor (the nest's first
// operation), so jam_rows by 2 of `for h` and of `for qi` differ only by their line; applying the
// second from its key applied the first (Transform::apply matched the anchor alone; held-out
// author42 gqa_full, session 34).
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

TEST(SiteLine, ASiteAppliedByItsAnchorAndLineIsTheSiteListed) {
  std::string path = source_dir() + "/tests/kernels/group_query_tiles_api.py";
  std::string text = read(path);
  const auto args = arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  auto sites = loopnest::find_sites(k);
  int shared_anchor = 0;
  for (const auto& s : sites) {
    for (const auto& o : sites)
      if (&o != &s && o.transform == s.transform && o.anchor == s.anchor && o.params == s.params) ++shared_anchor;
    loopnest::Site by_key = s;
    by_key.node = -1;
    std::string want, got;
    try {
      want = loopnest::apply_site(path, text, args, s);
    } catch (const std::exception&) {
      continue;  // refused when applied: the listing's business (TheListingRefusesWhatApplyingRefuses)
    }
    got = loopnest::apply_site(path, text, args, by_key);
    EXPECT_EQ(got, want) << s.key();
  }
  EXPECT_GT(shared_anchor, 0) << "no two sites share an anchor: the test checks nothing";
}

}  // namespace
