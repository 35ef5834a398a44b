// `a, b = op(x), op(y)`: a tuple display of new tiles unpacked into fresh names lifts (before
// session 36: "an unpacking of an operation's results"; a probe's parallel assignment), one frozen
// statement whose results are known by their targets; the moves around it print it as written.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kText = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        a, b = nl.multiply(t, 1.5), nl.multiply(t, 0.5)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(a, b))
    return out
)";

TEST(UnpackedResults, ATupleOfNewTilesUnpackedLiftsWithItsNames) {
  auto args = arrays({{256, 512}});
  loopnest::Kernel k = loopnest::lift_source("k.py", kText, args);
  std::string form = loopnest::dump(k);
  EXPECT_NE(form.find("a = nl.multiply(x=t, y=1.5)"), std::string::npos) << form;
  EXPECT_NE(form.find("b = nl.multiply(x=t, y=0.5)"), std::string::npos) << form;
  auto sites = loopnest::find_sites(k);
  EXPECT_FALSE(sites.empty());
  for (const auto& s : sites) {
    SCOPED_TRACE(s.key());
    std::string after = loopnest::apply_site("k.py", kText, args, s);
    EXPECT_NE(after.find("a, b = nl.multiply(t, 1.5), nl.multiply(t, 0.5)"), std::string::npos) << after;
  }
}

}  // namespace
