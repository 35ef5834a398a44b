// What a move leaves behind in the printed kernel that its author would not have written: a
// helper's def whose call the move opened into the kernel (src/loopnest/emit.cpp,
// without_uncalled_helpers), and a binding the move left unread (tidy.cpp, drop_dead_bindings),
// both decided on the code's names (name_uses.h), never on words in comments; and what the author
// left alone stays. A binding named in the file's comments that the move left unread goes:
// golden hidden_chunks_sum.free_size (`hidden`).
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/name_uses.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

TEST(PrintBackLeftovers, AReadIsTheNameInCodeNotInACommentAStringOrAKeyword) {
  auto module = loopnest::parse_text("t.py",
                                     "def f(x, out):\n"
                                     "    # rows of x\n"
                                     "    rows = x.shape[0]\n"
                                     "    label = 'rows'\n"
                                     "    nl.store(out, value=x.rows, rows2=g(cols))\n");
  ASSERT_TRUE(module);
  const loopnest::NameReads reads = loopnest::names_read(module->body);
  EXPECT_FALSE(reads.count("rows"));   // bound, named in a comment, a string and an attribute only
  EXPECT_FALSE(reads.count("value"));  // a keyword
  EXPECT_FALSE(reads.count("label"));  // bound, never read
  EXPECT_EQ(reads.at("x"), 2);
  EXPECT_EQ(reads.at("cols"), 1);
}

// `t: nt.tensor[P, F] = v`: the interpreter checks v's shape against the annotation, so the names
// it holds are read (a binding of P the move left only there stays).
TEST(PrintBackLeftovers, TheNamesOfAnAnnotationAreRead) {
  auto module = loopnest::parse_text("t.py",
                                     "def f(x):\n"
                                     "    P = 128\n"
                                     "    t: nt.tensor[P, 64] = nl.load(x)\n"
                                     "    u: nt.tensor[Q, 32]\n");
  ASSERT_TRUE(module);
  const loopnest::NameReads reads = loopnest::names_read(module->body);
  EXPECT_EQ(reads.at("P"), 1);
  EXPECT_EQ(reads.at("Q"), 1);
  EXPECT_EQ(reads.at("nt"), 2);
  EXPECT_FALSE(reads.count("t"));  // bound, never read
}

// nested_helper_rows.py with one more helper that nothing calls: jam_rows with the helpers opened
// leaves `_gate` uncalled (its def goes) and `_spare` as the author left it.
TEST(PrintBackLeftovers, AHelperTheMoveLeftUncalledGoesOneTheAuthorLeftUncalledStays) {
  const std::vector<loopnest::ArgSpec> args = arrays({{256, 256}, {2, 128, 1024}});
  const std::string path = source_dir() + "/tests/kernels/nested_helper_rows.py";
  std::string text = read(path);
  const std::string spare = "def _spare(t):\n    return nl.exp(t)\n\n\n";
  text.insert(text.find("def _gate"), spare);
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  const loopnest::Site* jam = nullptr;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.count("helpers")) jam = &s;
  ASSERT_TRUE(jam) << "no jam_rows site with the helpers opened";
  const std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_EQ(after.find("def _gate"), std::string::npos) << after;
  EXPECT_NE(after.find(spare + "@nki.jit"), std::string::npos) << after;
}

}  // namespace
