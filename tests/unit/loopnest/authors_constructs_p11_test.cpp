// Constructs of the session 11 corpus kernels (tests/kernels/corpus/p11_*, docs/language.md
// "Kernels by idiom, session 11") that the lifter refused: a `**kwargs` kernel parameter, `dict(...)`
// and `dict.update(...)` of a configuration; and constructs outside the documented surface, which
// stay refused by name, compiler-style, rather than crash.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

TEST(LoopNestLift, AKwargsKernelParameterIsEmptyAndADictConfigurationMerges) {
  // The kernel is called with its arguments by position: `overrides` is {}. dict() copies,
  // update() merges a dict then keywords, a later key replacing an earlier one in its place.
  std::string text = std::string("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n"
                                 "DEFAULTS = {\"scale\": 2.0, \"rows\": 128}\n\n\n@nki.jit\n") +
                     "def kernel(x, **overrides):\n"
                     "    cfg = dict(DEFAULTS)\n"
                     "    cfg.update(overrides)\n"
                     "    cfg.update({\"rows\": 64}, scale=0.25)\n"
                     "    extra = dict(bias=1.5)\n"
                     "    out = nl.ndarray((cfg[\"rows\"], 32), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x[0:cfg[\"rows\"], :])\n"
                     "    nl.store(out, value=nl.add(nl.multiply(t, cfg[\"scale\"]), extra[\"bias\"]))\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{128, 32}})));
  EXPECT_NE(d.find("tensor out: hbm float32[64, 32] output"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.multiply(x=t, y=0.25)"), std::string::npos) << d;
  EXPECT_NE(d.find("y=1.5)"), std::string::npos) << d;
  // Not a dict: refused, naming the call.
  std::string bad = std::string(kHead) +
                    "def kernel(x):\n"
                    "    cfg = dict([1, 2])\n"
                    "    return x\n";
  try {
    loopnest::lift_source("k.py", bad, arrays({{128, 32}}));
    FAIL() << "dict of a list lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("k.py:7:11: error: cannot lift 'dict([1, 2])' (a dict or keywords are expected)"),
              std::string::npos)
        << e.render();
  }
}

TEST(LoopNestLift, ConstructsOutsideTheDocumentedSurfaceAreRefusedByName) {
  // nki-language.md 12.1-12.2 name these without their semantics (or as run-time control flow the
  // interpreter does not model); the interpreter refuses them with the reason, the lift by name.
  // (nl.dynamic_range, which the interpreter runs in order, lifts as a sequential loop since
  // session 24: LoopNestDynamicRange.)
  const std::pair<const char*, const char*> cases[] = {
      {"nl.while_loop(0, lambda c: c)", "cannot lift the call of 'nl.while_loop'"},
      {"x.rearrange('a b -> b a')", "cannot lift the method call 'x.rearrange('a b -> b a')'"},
  };
  for (const auto& [expr, message] : cases) {
    std::string text = std::string(kHead) +
                       "def kernel(x):\n"
                       "    z = " + expr + "\n"
                       "    return x\n";
    try {
      loopnest::lift_source("k.py", text, arrays({{128, 32}}));
      ADD_FAILURE() << expr << " lifted";
    } catch (const loopnest::LiftError& e) {
      EXPECT_NE(e.render().find(std::string("k.py:7:9: error: ") + message), std::string::npos) << e.render();
      EXPECT_NE(e.render().find("\n      |         ^~~"), std::string::npos) << e.render();
    }
  }
}

}  // namespace
