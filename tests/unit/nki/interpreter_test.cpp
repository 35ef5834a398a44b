// The interpreter through its C++ API: loading, calling, limits, library-object dispatch.
#include <gtest/gtest.h>

#include "nki/interpreter.h"

namespace nki {
namespace {

std::shared_ptr<const SourceFile> src(std::string text) {
  return std::make_shared<SourceFile>(SourceFile{"t.py", std::move(text)});
}

std::string run(const std::string& code, Limits limits = {}) {
  Interpreter in(limits);
  in.load_module(src(code));
  return in.output();
}

NkiError run_error(const std::string& code, Limits limits = {}) {
  Interpreter in(limits);
  try {
    in.load_module(src(code));
  } catch (const NkiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error from: " << code;
  return NkiError(ErrorKind::Internal, "none");
}

// A library-style object recording how the interpreter dispatches operators to it.
struct Probe : Object {
  int value;
  explicit Probe(int v) : value(v) {}
  std::string type_name() const override { return "probe"; }
  std::string repr() const override { return "probe(" + std::to_string(value) + ")"; }
  std::optional<Value> binary_op(Interpreter&, BinOp op, const Value& other, bool reflected) override {
    if (op != BinOp::Add || !other.is_int()) return std::nullopt;
    return Value(std::make_shared<Probe>(value + int(other.as_int()) * (reflected ? 100 : 1)));
  }
  std::optional<Value> inplace_op(Interpreter&, BinOp op, const Value& other) override {
    value += int(other.as_int()) * 1000;
    return Value(shared_from_this());
  }
  bool aug_set_item(Interpreter&, BinOp, const Value& index, const Value& v) override {
    value += int(v.as_int()) * 10000;
    return true;
  }
  Value get_item(Interpreter&, const Value& index) override { return Value::from_int(value); }
};

TEST(Interpreter, LoadsAModuleAndCallsItsFunctions) {
  Interpreter in;
  auto m = in.load_module(src("K = 3\ndef get_inputs():\n    return [K, K * 2]\ndef forward(a, b):\n    return a + b\n"));
  Value inputs = in.call(m->get_attr(in, "get_inputs"), {});
  auto* list = inputs.as<ListObj>();
  ASSERT_NE(list, nullptr);
  CallArgs args;
  args.args = list->items;
  EXPECT_EQ(in.call(m->get_attr(in, "forward"), args).as_int(), 9);
  EXPECT_EQ(m->get_attr(in, "K").as_int(), 3);
}

TEST(Interpreter, PythonSemanticsOfNumbers) {
  EXPECT_EQ(run("print(7 // -2, -7 % 3, 7 / 2, 2 ** -1, 10 % -3, -(3), 1e-05, 3 == 3.0, True + True)\n"),
            "-4 2 3.5 0.5 -2 -3 1e-05 True 2\n");
  EXPECT_EQ(run_error("x = 9223372036854775807 + 1\n").diag.kind, ErrorKind::Value);
  EXPECT_EQ(run_error("x = 1 / 0\n").diag.kind, ErrorKind::Value);
}

TEST(Interpreter, DispatchesOperatorsToLibraryObjects) {
  Interpreter in;
  in.register_module("nki", [](Interpreter&) {
    auto m = std::make_shared<ModuleObj>("nki");
    m->attrs["probe"] = Value(std::make_shared<BuiltinObj>("nki.probe", [](Interpreter&, CallArgs& a) {
      return Value(std::make_shared<Probe>(int(a.args[0].as_int())));
    }));
    return m;
  });
  in.load_module(src("import nki\np = nki.probe(1)\nq = p + 2\nr = 3 + p\nalias = p\np += 4\np[0] += 5\n"
                     "print(q, r, p, alias is p)\n"));
  EXPECT_EQ(in.output(), "probe(3) probe(301) probe(54001) True\n");
}

TEST(Interpreter, BuiltinErrorsGetTheCallSite) {
  Interpreter in;
  in.set_builtin("explode", Value(std::make_shared<BuiltinObj>("explode", [](Interpreter&, CallArgs&) -> Value {
    throw NkiError(ErrorKind::Value, "bad shape");
  })));
  in.set_builtin("crash", Value(std::make_shared<BuiltinObj>("crash", [](Interpreter&, CallArgs&) -> Value {
    throw std::logic_error("boom");
  })));
  try {
    in.load_module(src("def f():\n    return   explode(1)\nf()\n"));
    FAIL();
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Value);
    EXPECT_EQ(e.diag.loc.line, 2u);
    EXPECT_EQ(e.diag.loc.col, 14u);
    ASSERT_EQ(e.diag.notes.size(), 1u);
    EXPECT_EQ(e.diag.notes[0].loc.line, 3u);
  }
  try {
    in.load_module(src("x = 1\ny = crash()\n"));
    FAIL();
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Internal);
    EXPECT_NE(e.diag.message.find("crash"), std::string::npos);
    EXPECT_EQ(e.diag.loc.line, 2u);
  }
}

TEST(Interpreter, CurrentLocIsTheInnermostCall) {
  Interpreter in;
  SourceLoc seen;
  in.set_builtin("where", Value(std::make_shared<BuiltinObj>("where", [&](Interpreter& i, CallArgs&) {
    seen = i.current_loc();
    return Value();
  })));
  in.load_module(src("a = 1\nb = [where()]\n"));
  EXPECT_EQ(seen.line, 2u);
  EXPECT_EQ(seen.col, 6u);
}

TEST(Interpreter, LimitsEndInCleanErrors) {
  Limits small;
  small.max_steps = 10000;
  NkiError steps = run_error("while True:\n    pass\n", small);
  EXPECT_EQ(steps.diag.kind, ErrorKind::Limit);
  EXPECT_EQ(steps.diag.message, "step limit of 10000 exceeded");
  NkiError rec = run_error("def f(n):\n    return f(n + 1)\nf(0)\n");
  EXPECT_EQ(rec.diag.kind, ErrorKind::Limit);
  EXPECT_EQ(rec.diag.message, "recursion depth limit of 200 exceeded");
  Limits bytes;
  bytes.max_bytes = 1 << 20;
  EXPECT_EQ(run_error("x = [0] * 10000000\n", bytes).diag.kind, ErrorKind::Limit);
  EXPECT_EQ(run_error("x = [1] * 10**10\n").diag.kind, ErrorKind::Limit);
  Limits time;
  time.max_seconds = 0.05;
  NkiError slow = run_error("x = 0\nwhile True:\n    x += 1\n", time);
  EXPECT_EQ(slow.diag.kind, ErrorKind::Limit);
  EXPECT_NE(slow.diag.message.find("time limit"), std::string::npos);
}

// A public kernel file's host harness reads the module docstring (`argparse.ArgumentParser(
// description=__doc__)` under `if __name__ == "__main__":`): __doc__ is the docstring, or None.
TEST(Interpreter, DocIsTheModulesDocstring) {
  EXPECT_EQ(run("\"\"\"Row sums.\"\"\"\nprint(__doc__)\n"), "Row sums.\n");
  EXPECT_EQ(run("x = 1\nprint(__doc__)\n"), "None\n");
}

TEST(Interpreter, SandboxRefusesForbiddenFacilities) {
  struct Case {
    const char* code;
    const char* message;
  };
  const Case cases[] = {
      {"open('x')\n", "'open' is not available in kernels: file access is not allowed"},
      {"eval('1')\n", "'eval' is not available in kernels: dynamic code execution is not allowed"},
      {"__import__('os')\n", "'__import__' is not available in kernels: dunder names are not allowed"},
      {"x = (1).__class__\n", "attribute '__class__' is not available in kernels: dunder attributes are not allowed"},
      {"getattr(1, '__class__')\n", "attribute '__class__' is not available in kernels: dunder attributes are not allowed"},
      {"setattr(1, 'a', 2)\n", "'setattr' is not available in kernels: modifying attributes is not allowed"},
  };
  for (const Case& c : cases) {
    NkiError e = run_error(c.code);
    EXPECT_EQ(e.diag.kind, ErrorKind::Sandbox) << c.code;
    EXPECT_EQ(e.diag.message, c.message) << c.code;
  }
  EXPECT_EQ(run_error("import os\n").diag.kind, ErrorKind::Import);
  EXPECT_EQ(run_error("def f():\n    import sys\nf()\n").diag.loc.line, 2u);
}

TEST(Interpreter, PositionalOnlyParametersBindAsPythonBindsThem) {
  // `def body(i, j, /, x, *, scale)`: a block body of another author's kernel. Before, refused at
  // parse time ("positional-only parameters ('/') are not supported in kernels").
  EXPECT_EQ(run("def body(i, j, /, x, *, scale=1):\n    return (i, j, x, scale)\n"
                "print(body(1, 2, 3), body(1, 2, x=4, scale=5))\n"),
            "(1, 2, 3, 1) (1, 2, 4, 5)\n");
  // A keyword naming a positional-only parameter goes to **kwargs, or is Python's TypeError.
  EXPECT_EQ(run("def f(a, /, **kw):\n    return (a, kw)\nprint(f(1, a=2))\n"), "(1, {'a': 2})\n");
  NkiError e = run_error("def f(a, /, b):\n    return a + b\nf(a=1, b=2)\n");
  EXPECT_EQ(e.diag.kind, ErrorKind::Type);
  EXPECT_NE(e.diag.message.find("positional-only arguments passed as keyword arguments: 'a'"), std::string::npos)
      << e.diag.message;
  // The marker must follow a parameter, once, before `*`.
  EXPECT_EQ(run_error("def f(/, a):\n    pass\n").diag.kind, ErrorKind::Syntax);
  EXPECT_EQ(run_error("def f(a, *, b, /):\n    pass\n").diag.kind, ErrorKind::Syntax);
}

TEST(Interpreter, ImportsInsideFunctionsBindLocals) {
  Interpreter in;
  in.register_module("math", [](Interpreter&) {
    auto m = std::make_shared<ModuleObj>("math");
    m->attrs["pi"] = Value::from_float(3.0);
    return m;
  });
  in.load_module(src("def f():\n    import math as mm\n    return mm.pi\nprint(f())\ntry_global = 'mm' in []\n"));
  EXPECT_EQ(in.output(), "3.0\n");
  EXPECT_EQ(run_error("def f():\n    import math as mm\nf()\nprint(mm)\n").diag.kind, ErrorKind::Import);
}

TEST(Interpreter, ExtensionsHoldPerRunState) {
  struct Counter {
    int n = 0;
  };
  Interpreter in;
  EXPECT_EQ(in.extension<Counter>(), nullptr);
  in.set_extension(std::make_shared<Counter>());
  in.extension<Counter>()->n = 5;
  EXPECT_EQ(in.extension<Counter>()->n, 5);
}

}  // namespace
}  // namespace nki
