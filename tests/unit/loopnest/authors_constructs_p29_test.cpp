// Constructs of well-formed hand-scheduled kernels (software pipelines written out, ping-pong
// buffers) that the lift refused or that offered no site (session 29 probes, docs/language.md
// "Session 29").
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kImports = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n";

TEST(LoopNestAuthors29, StagesGuardedByTwoComparisonsOfTheLoopVariableLift) {
  // A rotation written out: stage s loads tile s, computes tile s - 1 and stores tile s - 2. Before:
  // "cannot lift 's - 1 < T' as a condition of and/or after a comparison of loop variables".
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    T = 3\n"
                     "    out = nl.ndarray((384, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    a = nl.ndarray((3, nl.par_dim(128), 64), dtype=x.dtype, buffer=nl.sbuf)\n"
                     "    b = nl.ndarray((3, nl.par_dim(128), 64), dtype=x.dtype, buffer=nl.sbuf)\n"
                     "    for s in nl.sequential_range(T + 2):\n"
                     "        if s < T:\n"
                     "            a[s % 3] = nl.load(x[s * 128:(s + 1) * 128, :])\n"
                     "        if s >= 1 and s - 1 < T:\n"
                     "            b[(s - 1) % 3] = nl.exp(a[(s - 1) % 3])\n"
                     "        if 2 <= s < T + 2 or s > 99:\n"
                     "            nl.store(out[(s - 2) * 128:(s - 1) * 128, :], value=b[(s - 2) % 3])\n"
                     "    return out\n";
  auto args = arrays({{384, 64}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  // One condition each, true exactly where Python's is (s in 1..3, s in 2..4).
  EXPECT_NE(d.find("if ((1 if s - 4 < 0 else 0) if s - 1 >= 0 else 0) == 1:"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  auto want = loopnest_test::run("k.py", text, args);
  for (const auto& s : loopnest::find_sites(k)) {
    std::string changed = loopnest::apply_site("k.py", text, args, s);
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run("k.py", changed, args), want), 1e-6) << s.key();
  }
}

}  // namespace
