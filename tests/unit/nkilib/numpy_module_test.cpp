// The numpy module through the interpreter: values and kinds of errors for bad input, scalar
// semantics, in-place updates, ufuncs usable as values, shape-only mode.
#include <gtest/gtest.h>

#include <algorithm>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/modules.h"

namespace nki::lib {
namespace {

struct RunResult {
  std::string output;
  std::optional<Diagnostic> error;
};

RunResult run(const std::string& code, bool shape_only = false) {
  Interpreter in;
  install_builtin_modules(in);
  in.register_module("numpy", make_numpy_module);
  set_numpy_shape_only(in, shape_only);
  auto src = std::make_shared<SourceFile>();
  src->path = "snippet.py";
  src->text = "import numpy as np\n" + code;
  RunResult r;
  try {
    in.load_module(src);
  } catch (const NkiError& e) {
    r.error = e.diag;
  }
  r.output = in.output();
  return r;
}

std::string out(const std::string& code) {
  RunResult r = run(code);
  if (r.error) return "error: " + r.error->message;
  return r.output;
}

void expect_error(const std::string& code, ErrorKind kind, const std::string& fragment) {
  RunResult r = run(code);
  ASSERT_TRUE(r.error) << code;
  EXPECT_EQ(to_string(r.error->kind), std::string(to_string(kind))) << code << ": " << r.error->message;
  EXPECT_NE(r.error->message.find(fragment), std::string::npos) << code << ": " << r.error->message;
  // located at the user's (last) line; line 1 is the import
  EXPECT_EQ(r.error->loc.line, 2u + std::count(code.begin(), code.end(), '\n')) << code;
}

TEST(NumpyModule, BadInputGivesLocatedErrors) {
  expect_error("np.zeros((2, 3)) + np.zeros((4,))", ErrorKind::Value, "could not be broadcast");
  expect_error("np.zeros((2, -1))", ErrorKind::Value, "negative dimensions");
  expect_error("np.arange(6).reshape(4, 2)", ErrorKind::Value, "cannot reshape array of size 6");
  expect_error("np.zeros((2, 3))[2, 0]", ErrorKind::Value, "out of bounds");
  expect_error("np.zeros((2, 3))[1.5]", ErrorKind::Index, "only integers");
  expect_error("np.random.seed(-1)", ErrorKind::Value, "Seed must be between");
  expect_error("np.zeros((2, 3)) @ np.zeros((2, 3))", ErrorKind::Value, "mismatch in its core dimension");
  expect_error("np.sum(np.zeros((2, 3)), axis=2)", ErrorKind::Value, "axis 2 is out of bounds");
  expect_error("np.zeros(3, dtype='complex128')", ErrorKind::Type, "not understood");
  expect_error("a = np.zeros(3, np.int32)\na += 0.5", ErrorKind::Type, "same_kind");
  expect_error("bool(np.zeros(3))", ErrorKind::Value, "ambiguous");
  expect_error("np.max(np.zeros((0,)))", ErrorKind::Value, "zero-size array");
  expect_error("np.exp(np.zeros(2), foo=1)", ErrorKind::UnknownKeyword, "np.exp has no keyword 'foo'");
}

TEST(NumpyModule, ScalarsAndViews) {
  EXPECT_EQ(out("a = np.arange(6.0).reshape(2, 3)\nprint(a[1, 2], a[1][2], a[0, 0].dtype.name, a[0].dtype.name)\n"),
            "5.0 5.0 float64 float64\n");
  // numpy 1.24: a float32 scalar times a Python int is a float64 scalar; with a float32 it stays float32
  EXPECT_EQ(out("x = np.float32(0.1)\nprint(x, x * 2, x * np.float32(2), np.float64(0.1) + 0.2)\n"),
            "0.1 0.20000000298023224 0.2 0.30000000000000004\n");
  EXPECT_EQ(out("a = np.zeros((2, 2), np.float32)\nb = a\nb += 1\nc = a[0]\nc *= 3\nprint(a.tolist())\n"),
            "[[3.0, 3.0], [1.0, 1.0]]\n");
  EXPECT_EQ(out("s = np.float32(2)\nt = s\nt += 1\nprint(s, t)\n"), "2.0 3.0\n");
  EXPECT_EQ(out("print(list(range(np.int64(3))), [1, 2, 3][np.int32(1)], int(np.sum(np.arange(4))))\n"),
            "[0, 1, 2] 2 6\n");
  EXPECT_EQ(out("for row in np.arange(4).reshape(2, 2):\n    print(row.tolist(), row[0] + 1)\n"),
            "[0, 1] 1\n[2, 3] 3\n");
}

TEST(NumpyModule, UfuncsAreValues) {
  EXPECT_EQ(out("op = np.add\nprint(op(2, 3), op, np.maximum.reduce(np.array([1, 5, 2])), np.add.reduce(np.ones((2, 3)), axis=1).tolist())\n"),
            "5 <ufunc 'add'> 5 [3.0, 3.0]\n");
  Interpreter in;
  in.register_module("numpy", make_numpy_module);
  Value np_mod = in.import_module("numpy");
  Value add = in.get_attr(np_mod, "add");
  auto* u = dynamic_cast<UfuncObj*>(add.object().get());
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->name, "add");
  EXPECT_EQ(u->nin, 2);
  EXPECT_EQ(in.get_attr(np_mod, "max").repr().find("np.max") != std::string::npos, true);
}

TEST(NumpyModule, ShapeOnlyModeAllocatesNothing) {
  RunResult r = run("np.random.seed(0)\nx = np.random.normal(0, 1, size=(4096, 12288)).astype(np.float32)\n"
              "y = (x @ np.zeros((12288, 5120), np.float32)) * 0.5\nprint(y.shape, y.dtype.name, np.sum(y, axis=-1, keepdims=True).shape)\n",
              /*shape_only=*/true);
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.output, "(4096, 5120) float32 (4096, 1)\n");
}

TEST(NumpyModule, MemoryLimitIsALimitError) {
  Interpreter in(Limits{.max_bytes = 1 << 20});
  in.register_module("numpy", make_numpy_module);
  auto src = std::make_shared<SourceFile>();
  src->path = "big.py";
  src->text = "import numpy as np\nx = np.zeros((1024, 1024))\n";
  try {
    in.load_module(src);
    FAIL() << "no error";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Limit) << e.diag.message;
  }
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// np.array of a list nested 100,000 deep, or of a list that contains itself: numpy's dimension
// limit, never a stack overflow.
TEST(NumpyModule, DeeplyNestedListIsADimensionError) {
  for (const char* code : {"x = 1.0\nfor i in range(100000):\n    x = [x]\na = np.array(x)\n",
                           "x = []\nx.append(x)\na = np.array(x)\n"}) {
    RunResult r = run(code);
    ASSERT_TRUE(r.error) << code;
    EXPECT_EQ(r.error->kind, ErrorKind::Value);
    EXPECT_NE(r.error->message.find("maximum number of dimensions of 32"), std::string::npos) << r.error->message;
  }
}

}  // namespace
}  // namespace nki::lib
