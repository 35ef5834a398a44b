// A value carried over the items of a list of tiles (`for b in row[1:]: peak = nl.maximum(peak,
// nl.max(b, ...))`) lifts as one loop of the form over the block index (src/loopnest/lift_item_loop.cpp),
// printed back as written while unchanged and from the form once changed (emit_rolled.cpp); the
// exponentials of the list's items summed by such a chain fold into their activation
// (fold_activation_reduce over=list, src/loopnest/reduce_list.cpp). Kernels:
// tests/kernels/list_row_softmax_api.py (newer API, the chains in a helper over lists) and
// list_row_softmax.py (legacy API, the chains in the kernel body). Before, the chains were an Inline
// `for` node of unrolled copies (`peak#2`..`peak#4`), one statement per item.
#include <gtest/gtest.h>

#include <string>

#include "run_kernel.h"
#include "corpus.h"
#include "every_site.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 1024}});
const std::vector<std::string> kKernels = {"/tests/kernels/list_row_softmax_api.py", "/tests/kernels/list_row_softmax.py"};

const loopnest::Site* site_of(const std::vector<loopnest::Site>& sites, const std::string& transform,
                              const std::string& param = "", const std::string& value = "") {
  for (const auto& s : sites)
    if (s.transform == transform && (param.empty() || (s.params.count(param) && s.params.at(param) == value))) return &s;
  return nullptr;
}

TEST(ItemLoop, AChainCarriedOverAListIsOneLoopOverItsBlocks) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    loopnest::Kernel k = loopnest::lift_source(path, read(path), kArgs);
    std::string form = loopnest::dump(k);
    // The running peak: a loop over blocks 1..3 of the row's list, the carried tile written in place.
    EXPECT_NE(form.find("for b in range(1, 4):\n"), std::string::npos) << file << "\n" << form;
    EXPECT_NE(form.find("= nl.max(x=row_item[b, a0[128], a1[256]], axis=1, keepdims=True) @dve\n"), std::string::npos)
        << form;
    EXPECT_NE(form.find("peak = nl.maximum(x=peak, y=%1) @dve"), std::string::npos) << form;
    // The running total over the exponentials' list.
    EXPECT_NE(form.find("for w in range(1, 4):\n"), std::string::npos) << form;
    EXPECT_NE(form.find("total = nl.add(x=total, y=%3) @dve"), std::string::npos) << form;
    // No unrolled copies left.
    EXPECT_EQ(form.find("inline for"), std::string::npos) << form;
    EXPECT_EQ(form.find("peak#2"), std::string::npos) << form;
    // Unchanged, it prints as written.
    EXPECT_EQ(loopnest::emit(k), read(path)) << file;
  }
}

// A move on the opened helper changes the chain's statements: the loop prints from the form, over
// the block index (`for b in range(1, 4)` reading `row[b]`), never the author's `for b in
// blocks[1:]` header over a body that reads `b` as an index, nor the reverse.
TEST(ItemLoop, AChangedChainLoopPrintsFromTheForm) {
  std::string path = source_dir() + kKernels[0];
  std::string text = read(path);
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
  const loopnest::Site* fold = site_of(sites, "fold_bias");
  ASSERT_TRUE(fold);
  std::string after = loopnest::apply_site(path, text, kArgs, *fold);
  EXPECT_NE(after.find("        for b in range(1, 4):\n"
                       "            peak[...] = nl.maximum(peak, nl.max(row[b], axis=1, keepdims=True))\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("        for w in range(1, 4):\n"
                       "            total[...] = total + nl.sum(weights[w], axis=1, keepdims=True)\n"),
            std::string::npos)
      << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
}

// The exponentials' row sums: inside each item's activation, one reduction of the [128, 4] partial
// sums instead of four Vector Engine passes over [128, 256] items and three additions (author42's
// gqa_full 13.67 -> 12.13 ms alone, docs/builtin_agent.md).
TEST(ItemLoop, TheListsRowSumsFoldIntoItsActivations) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    const loopnest::Site* fold = site_of(sites, "fold_activation_reduce", "over", "list");
    ASSERT_TRUE(fold) << file;
    std::string after = loopnest::apply_site(path, text, kArgs, *fold);
    EXPECT_NE(after.find("total_parts = nl.ndarray(shape=(128, 4), dtype=nl.float32, buffer=nl.sbuf)\n"),
              std::string::npos)
        << after;
    EXPECT_NE(after.find("reduce_op=nl.add, reduce_res=total_parts[:, b:b + 1]) for b in range(4)]\n"),
              std::string::npos)
        << after;
    EXPECT_NE(after.find("total = nl.sum("), std::string::npos) << after;
    EXPECT_EQ(after.find("for w in weights[1:]"), std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
  }
}

TEST(ItemLoop, EverySiteOfTheKernelsPrintsAndKeepsItsResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs);
  }
}

// A total seeded with zeros and adding every item (`for w in weights:`) folds the same way: the
// zeros stay its declaration, the sum of the partials writes it where the chain was.
TEST(ItemLoop, AChainFromZerosFoldsToo) {
  std::string path = source_dir() + kKernels[1];
  std::string text = read(path);
  const std::string seed = "total = nl.sum(weights[0], axis=1, keepdims=True)";
  const std::string chain = "for w in weights[1:]:";
  ASSERT_NE(text.find(seed), std::string::npos);
  text.replace(text.find(seed), seed.size(), "total = nl.zeros((ROWS, 1), dtype=nl.float32)");
  text.replace(text.find(chain), chain.size(), "for w in weights:");
  loopnest::Kernel k = loopnest::lift_source(path, text, kArgs);
  EXPECT_NE(loopnest::dump(k).find("for w in range(4):\n"), std::string::npos) << loopnest::dump(k);
  const auto sites = loopnest::find_sites(k);
  const loopnest::Site* fold = site_of(sites, "fold_activation_reduce", "over", "list");
  ASSERT_TRUE(fold);
  std::string after = loopnest::apply_site(path, text, kArgs, *fold);
  EXPECT_NE(after.find("        total = nl.zeros((ROWS, 1), dtype=nl.float32)\n"
                       "        total[...] = nl.sum(total_parts, axis=1, keepdims=True)\n"),
            std::string::npos)
      << after;
  EXPECT_EQ(after.find("for w in weights"), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
}

// Items not in the list's order (reversed) are not one loop over its blocks: the copies stay, and
// the fold over the list is not offered; a chain that is not a plain sum of the items (a decaying
// total) is a loop but offers no fold either.
TEST(ItemLoop, OtherChainsStayAsTheyWere) {
  std::string path = source_dir() + kKernels[1];
  std::string text = read(path);
  {
    std::string reversed = text;
    const std::string chain = "for b in row[1:]:";
    ASSERT_NE(reversed.find(chain), std::string::npos);
    reversed.replace(reversed.find(chain), chain.size(), "for b in row[:0:-1]:");
    loopnest::Kernel k = loopnest::lift_source(path, reversed, kArgs);
    EXPECT_NE(loopnest::dump(k).find("inline for"), std::string::npos) << loopnest::dump(k);
    EXPECT_EQ(loopnest::emit(k), reversed);
  }
  {
    std::string decaying = text;
    const std::string add = "total = nl.add(total, nl.sum(w, axis=1, keepdims=True))";
    ASSERT_NE(decaying.find(add), std::string::npos);
    decaying.replace(decaying.find(add), add.size(), "total = nl.add(nl.multiply(total, 0.5), nl.sum(w, axis=1, keepdims=True))");
    loopnest::Kernel k = loopnest::lift_source(path, decaying, kArgs);
    EXPECT_NE(loopnest::dump(k).find("for w in range(1, 4):"), std::string::npos) << loopnest::dump(k);
    EXPECT_FALSE(site_of(loopnest::find_sites(k), "fold_activation_reduce", "over", "list"));
  }
}

}  // namespace
