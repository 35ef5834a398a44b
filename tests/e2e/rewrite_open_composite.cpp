// `accelopt rewrite` on a kernel written only in nl.* whose softmax is one composite call nested in
// the store: open_composite spells it out, and on the result the moves on its instructions are
// offered (the row sum into the activation, an engine move of a Vector Engine pass); applied one
// after the other, the kernel still passes the task's check.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kKernel = "tests/golden/rewrite/nl_softmax_bmm.py";

// bmm_softmax's reference (nkibench/reference) at the kernel's small test size.
std::string small_reference(const std::string& dir) {
  std::string ref = slurp(source("nkibench/reference/bmm_softmax_B16_K64_M4096_N4096.py"));
  for (auto [from, to] : {std::pair{"B = 16", "B = 2"}, {"M = 4096", "M = 256"}, {"N = 4096", "N = 1024"}}) {
    auto at = ref.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) ref.replace(at, std::string(from).size(), to);
  }
  std::string path = dir + "/bmm_softmax_B2_K64_M256_N1024.py";
  spit(path, ref);
  return path;
}

std::string key_of(const CliRun& list, const std::string& transform) {
  for (const auto& s : list.json())
    if (s["transform"] == transform) return s["key"];
  return "";
}

TEST(RewriteOpenComposite, OpensNlSoftmaxAndOffersTheMovesOnItsInstructions) {
  TempDir tmp;
  std::string ref = small_reference(tmp.path());
  std::string kernel = source(kKernel);
  CliRun before = accelopt(tmp.path(), "rewrite --json --kernel " + kernel + " --reference " + ref);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  // The composite hides its parts: the fold is offered on the kernel as written only as a move on
  // the kernel with its composite opened (composites=open), which apply opens first.
  bool fold_on_opened = false;
  for (const auto& s : before.json())
    if (s["transform"] == "fold_activation_reduce") {
      EXPECT_EQ(s["params"]["composites"], "open") << s.dump();
      fold_on_opened = true;
    }
  EXPECT_TRUE(fold_on_opened) << before.out;
  std::string open = key_of(before, "open_composite");
  ASSERT_FALSE(open.empty()) << before.out;

  CliRun opened = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --reference " + ref + " --apply " + quote(open));
  ASSERT_EQ(opened.exit_code, 0) << opened.err;
  EXPECT_EQ(opened.out.find("nl.softmax"), std::string::npos) << opened.out;
  EXPECT_NE(opened.out.find("import neuronxcc.nki.isa as nisa"), std::string::npos) << opened.out;
  EXPECT_NE(opened.out.find("negate=True"), std::string::npos) << opened.out;
  spit(tmp.path() + "/opened.py", opened.out);

  CliRun after = accelopt(tmp.path(), "rewrite --json --kernel " + tmp.path() + "/opened.py --reference " + ref);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  std::string fold = key_of(after, "fold_activation_reduce");
  ASSERT_FALSE(fold.empty()) << after.out;
  bool engine_move_on_expansion = false;
  for (const auto& s : after.json())
    if (s["transform"] == "engine_assign" && std::string(s["params"]["anchor"]).find("multiply") != std::string::npos &&
        s["params"]["from"] == "vector")
      engine_move_on_expansion = true;  // the normalising product, off the Vector Engine
  EXPECT_TRUE(engine_move_on_expansion) << after.out;

  // Open, then fold: the sum runs inside the activation, and the result still passes the check.
  CliRun folded = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --reference " + ref + " --apply " + quote(open) +
                                           " " + quote(fold));
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find("activation_reduce"), std::string::npos) << folded.out;
  spit(tmp.path() + "/folded.py", folded.out);
  // The same in one move on the kernel as written.
  CliRun direct = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --reference " + ref + " --apply " +
                                           quote(key_of(before, "fold_activation_reduce")));
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(direct.out, folded.out);
  for (const char* k : {"opened.py", "folded.py"}) {
    CliRun check = accelopt(tmp.path(), "eval --no-profile --json --reference " + ref + " --kernel " + tmp.path() + "/" + k);
    EXPECT_EQ(check.exit_code, 0) << k << check.err << check.out;
    EXPECT_EQ(check.json()["correct"], true) << k << check.out;
  }
}

}  // namespace
}  // namespace bench_e2e
