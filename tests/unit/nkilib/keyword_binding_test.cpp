// Keywords of the nl.* / nisa.* builtins are bound against the signature nki-language.md
// documents for each function (docs/language.md "Keywords"): an unknown keyword is a compile
// error (ErrorKind::UnknownKeyword, Python's TypeError for `except`) at the call with the caret
// under it (diag.keyword names it), never silently dropped, and every documented keyword binds.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

using testing::Harness;

constexpr const char* kUnknown = "not_a_documented_keyword";

// The modules' functions, by qualified name.
std::map<std::string, Value> library_functions(Harness& h) {
  auto mod = h.load_text("imports.py", "import neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n");
  std::map<std::string, Value> out;
  for (const char* alias : {"nl", "nisa"})
    for (auto& [name, value] : mod->attrs.at(alias).as<ModuleObj>()->attrs)
      if (value.as<BuiltinObj>()) out[std::string(alias) + "." + name] = value;
  return out;
}

// The keywords nki-language.md gives each function (sections 5, 7, 8 and 12; the newer API's
// destination-first `dst` and trailing `name` for the instructions, 12.2). Binary and unary
// element-wise functions share the common signatures of 7.3 / 7.4 and are checked below.
const std::map<std::string, std::vector<std::string>>& documented_keywords() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"nl.load", {"src", "mask", "dtype"}},
      {"nl.store", {"dst", "value", "mask"}},
      {"nl.load_transpose2d", {"src", "mask", "dtype"}},
      {"nl.copy", {"mask", "dtype"}},
      {"nl.broadcast_to", {"shape", "dtype"}},
      {"nl.ndarray", {"shape", "dtype", "buffer", "name"}},
      {"nl.zeros", {"shape", "dtype", "buffer", "name", "lazy_initialization"}},
      {"nl.ones", {"shape", "dtype", "buffer", "name"}},
      {"nl.full", {"shape", "fill_value", "dtype", "buffer", "name"}},
      {"nl.zeros_like", {"a", "dtype", "buffer", "name"}},
      {"nl.empty_like", {"a", "dtype", "buffer", "name"}},
      {"nl.shared_constant", {"constant", "dtype"}},
      {"nl.shared_identity_matrix", {"n", "dtype"}},
      {"nl.rand", {"shape", "dtype"}},
      {"nl.random_seed", {"seed", "mask"}},
      {"nl.matmul", {"x", "y", "transpose_x", "mask"}},
      {"nl.transpose", {"x", "dtype", "mask"}},
      {"nl.softmax", {"x", "axis", "dtype", "compute_dtype", "mask"}},
      {"nl.rms_norm", {"x", "w", "axis", "n", "epsilon", "dtype", "compute_dtype", "mask"}},
      {"nl.where", {"condition", "x", "y", "dtype", "mask"}},
      {"nl.gather_flattened", {"data", "indices", "mask", "dtype", "axis"}},
      {"nl.ds", {"start", "size"}},
      {"nl.loop_reduce", {"x", "op", "loop_indices", "dtype", "mask"}},
      {"nl.program_id", {"axis"}},
      {"nl.num_programs", {"axes"}},
      {"nl.affine_range", {"directives", "precise_schedule", "stop", "step"}},
      {"nl.sequential_range", {"directives", "precise_schedule", "stop", "step"}},
      {"nl.static_range", {"directives", "precise_schedule", "stop", "step"}},
      {"nl.sum", {"x", "axis", "dtype", "mask", "keepdims"}},
      {"nl.max", {"x", "axis", "dtype", "mask", "keepdims"}},
      {"nl.min", {"x", "axis", "dtype", "mask", "keepdims"}},
      {"nl.mean", {"x", "axis", "dtype", "mask", "keepdims"}},
      {"nl.prod", {"x", "axis", "dtype", "mask", "keepdims"}},
      {"nl.var", {"x", "axis", "dtype", "mask"}},
      {"nl.all", {"x", "axis", "dtype", "mask"}},
      {"nisa.nc_matmul",
       {"stationary", "moving", "is_stationary_onezero", "is_moving_onezero", "is_transpose", "tile_position",
        "tile_size", "mask", "dst", "accumulate", "perf_mode", "name"}},
      {"nisa.nc_transpose", {"data", "mask", "dtype", "engine", "name"}},
      {"nisa.activation",
       {"op", "data", "bias", "scale", "reduce_op", "reduce_res", "reduce_cmd", "mask", "dtype", "name"}},
      {"nisa.activation_reduce", {"op", "data", "reduce_op", "reduce_res", "bias", "scale", "mask", "dtype", "name"}},
      {"nisa.tensor_tensor", {"data1", "data2", "op", "dtype", "mask", "engine", "name"}},
      {"nisa.tensor_scalar",
       {"data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1", "dtype", "mask", "engine", "name"}},
      {"nisa.scalar_tensor_tensor",
       {"data", "op0", "operand0", "op1", "operand1", "reverse0", "reverse1", "dtype", "mask", "name"}},
      {"nisa.tensor_reduce", {"op", "data", "axis", "mask", "dtype", "negate", "keepdims", "name"}},
      {"nisa.tensor_partition_reduce", {"op", "data", "mask", "dtype", "name"}},
      {"nisa.tensor_scalar_reduce",
       {"data", "op0", "operand0", "reduce_op", "reduce_res", "reverse0", "dtype", "mask", "name"}},
      {"nisa.tensor_tensor_scan",
       {"data0", "data1", "initial", "op0", "op1", "reverse0", "reverse1", "dtype", "mask", "name"}},
      {"nisa.reciprocal", {"data", "dtype", "mask", "name"}},
      {"nisa.tensor_copy", {"src", "mask", "dtype", "engine", "name"}},
      {"nisa.memset", {"shape", "value", "dtype", "mask", "engine", "dst", "name"}},
      {"nisa.iota", {"expr", "dtype", "mask"}},
      {"nisa.dma_copy", {"dst", "src", "mask", "dst_rmw_op", "oob_mode", "dge_mode"}},
      {"nisa.dma_transpose", {"src", "axes", "mask", "dtype", "name"}},
  };
  return table;
}

const std::vector<std::string> kBinary = {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
                                          "equal", "less", "greater", "bitwise_and", "logical_and"};
const std::vector<std::string> kUnary = {"exp", "log", "sqrt", "rsqrt", "square", "abs", "negative", "tanh", "sigmoid",
                                         "relu", "gelu", "silu", "sin", "floor"};

bool takes(const Signature& sig, const std::string& keyword) {
  for (const Param& p : sig.params)
    if (p.name == keyword) return true;
  return false;
}

TEST(KeywordBinding, EveryDocumentedKeywordBinds) {
  Harness h;
  auto functions = library_functions(h);
  auto table = documented_keywords();
  for (const auto& op : kBinary) table["nl." + op] = {"x", "y", "dtype", "mask"};
  for (const auto& op : kUnary) table["nl." + op] = {"x", "dtype", "mask"};
  for (const auto& [name, keywords] : table) {
    ASSERT_TRUE(functions.count(name)) << name << " is documented but not registered";
    const Signature* sig = functions[name].as<BuiltinObj>()->signature();
    ASSERT_NE(sig, nullptr) << name << " declares no signature";
    for (const auto& k : keywords) EXPECT_TRUE(takes(*sig, k)) << name << "() does not take the documented " << k << "=";
  }
}

// Every registered function refuses a keyword it does not take: UnknownKeyword naming the keyword
// (typed, diag.keyword) and listing what it takes; the APIs refused as a whole are Unsupported.
TEST(KeywordBinding, EveryFunctionRefusesAnUnknownKeyword) {
  Harness h;
  int with_signature = 0;
  for (auto& [name, fn] : library_functions(h)) {
    CallArgs call;
    call.kwargs.push_back({kUnknown, Value::from_int(1)});
    try {
      h.in.call(fn, std::move(call));
      ADD_FAILURE() << name << "() ran with an unknown keyword";
    } catch (const NkiError& e) {
      const Signature* sig = fn.as<BuiltinObj>()->signature();
      if (!sig) {
        EXPECT_EQ(e.diag.kind, ErrorKind::Unsupported) << name << ": " << e.diag.message;
        continue;
      }
      ++with_signature;
      EXPECT_EQ(e.diag.kind, ErrorKind::UnknownKeyword) << name << ": " << e.diag.message;
      EXPECT_EQ(e.diag.keyword, kUnknown) << name << ": " << e.diag.message;
      EXPECT_NE(e.diag.message.find(sig->name + " has no keyword '" + kUnknown + "'"), std::string::npos)
          << e.diag.message;
      EXPECT_NE(e.diag.message.find("accepted: " + (sig->params.empty() ? std::string("none") : sig->params[0].name)),
                std::string::npos)
          << e.diag.message;
    }
  }
  EXPECT_GT(with_signature, 100) << "the nl and nisa modules should be walked";
}

std::string kernel_with(const std::string& line) {
  return "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport numpy as np\n\n"
         "@nki.jit\ndef kernel(a):\n    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)\n"
         "    x = nl.load(a[0:128, 0:128])\n" + line + "\n    nl.store(out, x)\n    return out\n";
}

NkiError run_expecting_error(Harness& h, const std::string& text) {
  auto mod = h.load_text("kw.py", text);
  try {
    h.run_module(*mod, {testing::test_input({128, 128}, 0)});
  } catch (const NkiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error";
  return NkiError(ErrorKind::Internal, "none");
}

TEST(KeywordBinding, AMisspelledKeywordIsReportedAtTheKeyword) {
  Harness h;
  const std::string line = "    y = nl.matmul(x, x, transpose_y=True)";
  NkiError e = run_expecting_error(h, kernel_with(line));
  EXPECT_EQ(e.diag.kind, ErrorKind::UnknownKeyword);
  EXPECT_EQ(e.diag.keyword, "transpose_y");
  EXPECT_EQ(e.diag.message, "nl.matmul has no keyword 'transpose_y'; accepted: x, y, transpose_x, mask");
  EXPECT_EQ(e.diag.loc.line, 9u);
  EXPECT_EQ(e.diag.loc.col, line.find("transpose_y") + 1);
  EXPECT_EQ(e.diag.loc.end_col, line.find("transpose_y") + 1 + std::string("transpose_y").size());
  std::string shown = render(e.diag);
  EXPECT_NE(shown.find("kw.py:9:"), std::string::npos) << shown;
  EXPECT_NE(shown.find("^~~~~~~~~~~\n"), std::string::npos) << shown;  // under the 11 characters of transpose_y
}

TEST(KeywordBinding, AReductionsUndocumentedKeywordIsRefused) {
  Harness h;
  NkiError e = run_expecting_error(h, kernel_with("    y = nl.max(x, axis=1, initial=0.0)"));
  EXPECT_EQ(e.diag.kind, ErrorKind::UnknownKeyword);
  EXPECT_EQ(e.diag.keyword, "initial");
}

TEST(KeywordBinding, AnInstructionKeywordIsRefusedInBothCallForms) {
  Harness h;
  NkiError legacy = run_expecting_error(h, kernel_with("    y = nisa.tensor_copy(x, enigne=nisa.vector_engine)")
                                               .replace(0, 0, "import neuronxcc.nki.isa as nisa\n"));
  EXPECT_EQ(legacy.diag.keyword, "enigne");
  NkiError newer = run_expecting_error(
      h, kernel_with("    nisa.tensor_copy(dst=x, src=x, enigne=nisa.vector_engine)").replace(0, 0, "import neuronxcc.nki.isa as nisa\n"));
  EXPECT_EQ(newer.diag.keyword, "enigne");
}

TEST(KeywordBinding, TheDocumentedExtrasRun) {
  Harness h;
  auto mod = h.load_text("extras.py", kernel_with(
      "    z = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum, lazy_initialization=True, name='acc')\n"
      "    for i in nl.affine_range(1, precise_schedule=True):\n"
      "        x = nl.copy(x)\n"
      "    for i in nl.sequential_range(0, stop=2, step=1):\n"
      "        x = nl.copy(x)"));
  EXPECT_NO_THROW(h.run_module(*mod, {testing::test_input({128, 128}, 0)}));
}

// A user function's binding error is typed the same way and points at the keyword.
TEST(KeywordBinding, AUserFunctionsUnknownKeywordPointsAtIt) {
  Harness h;
  const std::string line = "    y = helper(x, scael=2.0)";
  NkiError e = run_expecting_error(
      h, kernel_with(line).replace(0, 0, "def helper(t, scale=1.0, *, mode=None):\n    return t\n"));
  EXPECT_EQ(e.diag.kind, ErrorKind::UnknownKeyword);
  EXPECT_EQ(e.diag.keyword, "scael");
  EXPECT_EQ(e.diag.message, "helper has no keyword 'scael'; accepted: t, scale, mode");
  EXPECT_EQ(e.diag.loc.col, line.find("scael") + 1);
}

// Python semantics for user code: the binding fails when the call runs, as Python's TypeError,
// so `except TypeError` catches it (and a call that never runs is no error); a helper taking
// **kwargs takes any keyword.
TEST(KeywordBinding, AnUnknownKeywordIsPythonsTypeErrorForExcept) {
  Harness h;
  auto mod = h.load_text("caught.py", R"(
def helper(t, scale=1.0):
  return t


def never_called():
  return helper(1, scael=2.0)


def extras(t, **options):
  return sorted(options)


caught = []
try:
  helper(1, scael=2.0)
except TypeError as e:
  caught.append('helper')
try:
  import math
  math.isclose(1.0, 1.0, rel=1e-3)
except TypeError as e:
  caught.append('isclose')
names = extras(1, scael=2.0, mode=3)
)");
  auto caught = mod->attrs.at("caught").as<ListObj>();
  ASSERT_NE(caught, nullptr);
  ASSERT_EQ(caught->items.size(), 2u);
  EXPECT_EQ(caught->items[0].repr(), "'helper'");
  EXPECT_EQ(caught->items[1].repr(), "'isclose'");
  EXPECT_EQ(mod->attrs.at("names").repr(), "['mode', 'scael']");
}

}  // namespace
}  // namespace nki::lib
