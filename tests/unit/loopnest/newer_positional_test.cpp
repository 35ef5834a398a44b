// The newer API's destination-first calls take their parameters by position in 12.2's order
// (nki-language.md), more of them than the legacy forms do: `nisa.scalar_tensor_tensor(dst, data,
// op0, operand0, op1, operand1)`, activation's bias and scale, tensor_tensor's engine,
// tensor_reduce's negate and keepdims. The interpreter and the lifter bind them by the same table
// (nki/lib/isa_positional.h); before, the interpreter refused the scalar_tensor_tensor call ("takes
// 0 positional arguments but 5 were given") and the lifter read a positional engine as dtype=.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "nki/value.h"

namespace {

const char* kHead = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n@nki.jit\ndef kernel(x, y):\n"
                    "    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                    "    a = nl.load(x)\n"
                    "    b = nl.load(y)\n"
                    "    m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
                    "    e = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
                    "    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
                    "    r = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n";
const char* kTail = "    nl.store(out, r)\n    return out\n";

const std::string kPositional = std::string(kHead) +
                                "    nisa.tensor_reduce(m, nl.max, a, 1, True, True)\n"
                                "    nisa.activation(e, nl.exp, a, m, 0.5)\n"
                                "    nisa.tensor_tensor(t, e, b, nl.add, nisa.vector_engine)\n"
                                "    nisa.scalar_tensor_tensor(r, t, nl.multiply, 0.999, nl.add, b)\n" +
                                kTail;
const std::string kKeywords =
    std::string(kHead) +
    "    nisa.tensor_reduce(dst=m, op=nl.max, data=a, axis=1, negate=True, keepdims=True)\n"
    "    nisa.activation(dst=e, op=nl.exp, data=a, bias=m, scale=0.5)\n"
    "    nisa.tensor_tensor(dst=t, data1=e, data2=b, op=nl.add, engine=nisa.vector_engine)\n"
    "    nisa.scalar_tensor_tensor(dst=r, data=t, op0=nl.multiply, operand0=0.999, op1=nl.add, operand1=b)\n" +
    kTail;

const auto kArgs = loopnest_test::arrays({{128, 512}, {128, 512}});

TEST(NewerPositional, RunsAsTheKeywordCallsDo) {
  auto want = loopnest_test::run("kw.py", kKeywords, kArgs);
  auto got = loopnest_test::run("pos.py", kPositional, kArgs);
  EXPECT_EQ(loopnest_test::rel_error(got, want), 0.0);
}

TEST(NewerPositional, LiftsAsTheKeywordCallsDoAndPrintsBackAsWritten) {
  loopnest::Kernel pos = loopnest::lift_source("pos.py", kPositional, kArgs);
  loopnest::Kernel kw = loopnest::lift_source("kw.py", kKeywords, kArgs);
  EXPECT_EQ(loopnest::dump(pos), loopnest::dump(kw));
  EXPECT_EQ(loopnest::emit(pos), kPositional);
}

TEST(NewerPositional, TooManyPositionalArgumentsCountTheDestination) {
  std::string text = std::string(kHead) + "    nisa.tensor_copy(r, a, nisa.vector_engine, 1)\n" + kTail;
  try {
    loopnest_test::run("k.py", text, kArgs);
    FAIL() << "ran";
  } catch (const nki::NkiError& e) {
    EXPECT_NE(std::string(e.what()).find("takes 3 positional arguments but 4 were given"), std::string::npos) << e.what();
  }
}

}  // namespace
