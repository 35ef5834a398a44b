// A list of fresh tiles whose items a loop rebinds (src/loopnest/lift_bound_fresh.cpp):
// tests/kernels/carried_state_list_api.py (and its legacy twin) carries each state's last hidden
// column from one sequence chunk to the next in `carry = [nl.zeros((P, 1), ...) for _ in range(S)]`,
// read as the scan's `initial=carry[s]` and rebound by `carry[s] = h[:, CHUNK - 1:CHUNK]` inside
// `for s in range(S)`. The binding is a write of block s of the list's buffer, so the state and
// chunk loops stay loops of the form. Before, it was Python's item assignment in a loop, and every
// loop around it lifted as its unrolled copies (held-out author42 mamba: 777 sites, one per copy).
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{128, 512}, {128, 512}, {128, 2}, {2, 512}});
const std::vector<std::string> kKernels = {"/tests/kernels/carried_state_list_api.py",
                                           "/tests/kernels/carried_state_list.py"};

TEST(CarriedStateList, TheBindingIsAWriteOfTheListsBlockAndTheLoopsStayLoops) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string form = loopnest::dump(loopnest::lift_source(path, read(path), kArgs));
    EXPECT_NE(form.find("tensor carry: sbuf float32[2 | 128, 1] buffer carried by mi"), std::string::npos)
        << file << "\n" << form;
    EXPECT_NE(form.find("for mi in range(2):"), std::string::npos) << form;
    EXPECT_NE(form.find("for s in range(2):"), std::string::npos) << form;
    EXPECT_NE(form.find("initial=carry[s, a0[128], a1[1]]"), std::string::npos) << form;
    EXPECT_NE(form.find("carry[s, a0[128], a1[1]] = assign(src=h[a0[128], 255 + a1[1]])"), std::string::npos) << form;
    EXPECT_EQ(form.find("inline for"), std::string::npos) << form;
  }
}

// The exponential's multiply by the state's column folds into the activation's scale: one site
// for every chunk and state (author42 mamba: 2.041 -> 1.805 ms), the binding copied as written.
TEST(CarriedStateList, FoldScaleIsOneSiteForEveryStateAndKeepsTheResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    std::vector<const loopnest::Site*> folds;
    for (const auto& s : sites)
      if (s.transform == "fold_scale") folds.push_back(&s);
    ASSERT_EQ(folds.size(), 1u) << file;
    std::string after = loopnest::apply_site(path, text, kArgs, *folds[0]);
    EXPECT_NE(after.find("nisa.activation(op=nl.exp, data=delta_t, scale=a_tile[:, s:s + 1])"), std::string::npos)
        << after;
    EXPECT_NE(after.find("            carry[s] = h[:, CHUNK - 1:CHUNK]\n"), std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
  }
}

TEST(CarriedStateList, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  std::string path = source_dir() + kKernels[0];
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u);
}

// An item rebound to a tile of another shape than the list's items is no write of its block: the
// old rule holds (Python's item assignment, the loops lifted as the copies the trace runs).
TEST(CarriedStateList, AnItemReboundToATileOfAnotherShapeKeepsTheCopies) {
  const std::string text =
      "import nki\n"
      "import nki.language as nl\n"
      "\n"
      "\n"
      "@nki.jit\n"
      "def kernel(x):\n"
      "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    parts = [nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf) for _ in range(2)]\n"
      "    for g in range(2):\n"
      "        parts[g] = nl.load(x[:, g * 32:(g + 1) * 32])\n"
      "    nl.store(out[:, 0:32], value=parts[0])\n"
      "    nl.store(out[:, 32:64], value=parts[1])\n"
      "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{128, 64}}));
  std::string form = loopnest::dump(k);
  EXPECT_EQ(form.find("for g in range(2):"), std::string::npos) << form;
  EXPECT_NE(form.find("x[a0[128], 32 + a1[32]]"), std::string::npos) << form;  // the second copy's load
  EXPECT_EQ(loopnest::emit(k), text);
}

// A view of a tile declared outside the loops and written again by every iteration: Python's item
// aliases it (each later scan changes what `carry[s]` holds), which a copy into the list's block
// does not, so the binding is no write of the block; the loops lift as the trace's copies.
TEST(CarriedStateList, AViewOfATileWrittenByEveryIterationKeepsTheCopies) {
  const std::string text =
      "import nki\n"
      "import nki.isa as nisa\n"
      "import nki.language as nl\n"
      "\n"
      "\n"
      "@nki.jit\n"
      "def kernel(x):\n"
      "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    carry = [nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf) for _ in range(2)]\n"
      "    h = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    t = nl.load(x)\n"
      "    for s in range(2):\n"
      "        nisa.tensor_tensor_scan(dst=h, data0=t, data1=t, initial=carry[s], op0=nl.multiply, op1=nl.add)\n"
      "        carry[s] = h[:, 63:64]\n"
      "    nl.store(out, value=h)\n"
      "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{128, 64}}));
  std::string form = loopnest::dump(k);
  EXPECT_EQ(form.find("for s in range(2):"), std::string::npos) << form;
  EXPECT_EQ(loopnest::emit(k), text);
}

}  // namespace
