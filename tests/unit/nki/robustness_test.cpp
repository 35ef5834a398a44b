// Hostile programs (issue 14): each must end in Python's behaviour or a clear, typed error, never
// in a signal (stack overflow), a hang or unbounded memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "nki/interpreter.h"

namespace nki {
namespace {

std::shared_ptr<const SourceFile> src(std::string text, std::string path = "h.py") {
  return std::make_shared<SourceFile>(SourceFile{std::move(path), std::move(text)});
}

struct Outcome {
  std::string output;
  std::optional<Diagnostic> error;
};

Outcome run(const std::string& code, Limits limits = {}) {
  Outcome out;
  Interpreter in(limits);
  try {
    in.load_module(src(code));
  } catch (const NkiError& e) {
    out.error = e.diag;
  }
  out.output = in.output();
  return out;
}

TEST(Robustness, ListContainingItselfPrintsLikePython) {
  Outcome r = run("a = []\na.append(a)\nprint(a)\nd = {}\nd['k'] = d\nprint(d)\n");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.output, "[[...]]\n{'k': {...}}\n");
}

TEST(Robustness, FiftyThousandTermExpressionIsAnError) {
  std::string sum = "x = 1";
  for (int i = 0; i < 50000; ++i) sum += "+1";
  Outcome r = run(sum + "\n");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, ErrorKind::Syntax);
  EXPECT_NE(r.error->message.find("expression is too long"), std::string::npos) << r.error->message;
  EXPECT_EQ(r.error->loc.line, 1u);
}

TEST(Robustness, ListNestedAMillionDeepIsFreed) {
  Limits limits;
  limits.max_steps = 50'000'000;
  Outcome r = run("x = []\nfor i in range(1000000):\n    x = [x]\nx = None\nprint('freed')\n", limits);
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.output, "freed\n");
  // And when the interpreter itself goes away with the list alive.
  run("x = []\nfor i in range(1000000):\n    x = [x]\n", limits);
}

TEST(Robustness, DeeplyNestedOrSelfReferencingContainersInComparisonPrintAndSort) {
  const char* cases[] = {
      // comparing two self-referencing lists
      "a = []\na.append(a)\nb = []\nb.append(b)\nprint(a == b)\n",
      // ordering them (sorting compares)
      "a = []\na.append(a)\nb = []\nb.append(b)\nprint(sorted([a, b]))\n",
      // deeply nested lists, compared
      "x = []\ny = []\nfor i in range(100000):\n    x = [x]\n    y = [y]\nprint(x == y)\n",
      // deeply nested tuples, compared
      "t = ()\nu = ()\nfor i in range(100000):\n    t = (t,)\n    u = (u,)\nprint(t == u)\n",
      // deeply nested lists, printed
      "x = []\nfor i in range(100000):\n    x = [x]\nprint(x)\n",
  };
  for (const char* code : cases) {
    SCOPED_TRACE(code);
    Outcome r = run(code);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->kind, ErrorKind::Limit);
    EXPECT_EQ(r.error->limit, LimitKind::Depth);
    EXPECT_NE(r.error->message.find("maximum recursion depth exceeded"), std::string::npos) << r.error->message;
  }
  // A list is equal to itself without recursing (identity first), as in Python.
  Outcome same = run("a = []\na.append(a)\nprint(a == a)\n");
  ASSERT_FALSE(same.error) << same.error->message;
  EXPECT_EQ(same.output, "True\n");
}

// Python containers count against the memory limit like arrays: lists of 10**6 items (32 MB: a
// Value is 32 bytes) under a 256 MiB limit stop after 8 of them (the hostile case reached 10.3 GB
// under a 4 GiB limit).
TEST(Robustness, ContainersCountAgainstTheMemoryLimit) {
  Limits limits;
  limits.max_bytes = 256ull << 20;
  Outcome r = run("x = []\nfor i in range(10000):\n    x.append([0] * 10**6)\n    print(i)\n", limits);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->limit, LimitKind::Memory) << r.error->message;
  int lists = int(std::count(r.output.begin(), r.output.end(), '\n'));
  EXPECT_GE(lists, 6);
  EXPECT_LE(lists, 8);
  // The same with a comprehension, and with strings.
  Outcome comp = run("x = [[0] * 10**6 for i in range(10**4)]\n", limits);
  ASSERT_TRUE(comp.error);
  EXPECT_EQ(comp.error->limit, LimitKind::Memory);
  Outcome strings = run("x = []\nfor i in range(10**4):\n    x.append('ab' * 10**7 + str(i))\n", limits);
  ASSERT_TRUE(strings.error);
  EXPECT_EQ(strings.error->limit, LimitKind::Memory);
  // Freed containers are credited back: a loop that builds and drops lists runs to the end.
  Outcome churn = run("for i in range(100):\n    x = [0] * 10**6\nprint('done')\n", limits);
  ASSERT_FALSE(churn.error) << churn.error->message;
}

TEST(Robustness, ByteOrderMarkIsAllowed) {
  Outcome r = run("\xEF\xBB\xBFx = 1\nprint(x)\n");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.output, "1\n");
}

TEST(Robustness, InvalidUtf8IsASyntaxErrorAtItsByte) {
  Outcome r = run("x = 1\n# caf\xE9\ny = 2\n");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, ErrorKind::Syntax);
  EXPECT_EQ(r.error->loc.line, 2u);
  EXPECT_EQ(r.error->loc.col, 6u);
  EXPECT_NE(r.error->message.find("not valid UTF-8: byte 0xe9"), std::string::npos) << r.error->message;
  // The rendering is valid UTF-8 (it quotes the line) and names the file.
  std::string text = render(*r.error);
  EXPECT_EQ(first_invalid_utf8(text), std::string::npos) << text;
  EXPECT_EQ(text.rfind("h.py:2:6: error:", 0), 0u) << text;
}

TEST(Robustness, LongLinesAreTrimmedBetweenCharacters) {
  // A caret far into a line of two-byte characters: the shown part must stay valid UTF-8.
  std::string line = "x = '" + std::string(30, 'a');
  for (int i = 0; i < 200; ++i) line += "\xC3\xA9";  // é
  line += "' + undefined_name\n";
  Outcome r = run(line);
  ASSERT_TRUE(r.error);
  std::string text = render(*r.error);
  EXPECT_EQ(first_invalid_utf8(text), std::string::npos) << text;
  EXPECT_NE(text.find("..."), std::string::npos) << text;
}

TEST(Robustness, FormatFieldAttributesAndIndices) {
  Outcome r = run("print('{0[1]} {k[a]}'.format([5, 6], k={'a': 7}))\n");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.output, "6 7\n");
  // An attribute is looked up: an int's own (CPython prints 0), an error for one it has not,
  // never the number silently.
  Outcome imag = run("print('{0.imag}'.format(1))\n");
  ASSERT_FALSE(imag.error) << imag.error->message;
  EXPECT_EQ(imag.output, "0\n");
  Outcome attr = run("print('{0.nope}'.format(1))\n");
  ASSERT_TRUE(attr.error);
  Outcome dunder = run("print('{0.__class__}'.format(1))\n");
  ASSERT_TRUE(dunder.error);
  EXPECT_EQ(dunder.error->kind, ErrorKind::Sandbox);
}

TEST(Robustness, SourceOverTheSizeLimitIsRefusedBeforeParsing) {
  Limits limits;
  limits.max_source_bytes = 1000;
  Outcome r = run("x = 1\n" + std::string(2000, '#') + "\n", limits);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->limit, LimitKind::SourceSize);
}

TEST(Robustness, ModulesThatDefineFunctionsDoNotLeak) {
  std::weak_ptr<ModuleObj> module;
  {
    Interpreter in;
    module = in.load_module(src("def f():\n    return g\ndef g():\n    return f\n"));
    EXPECT_FALSE(module.expired());
  }
  EXPECT_TRUE(module.expired());
}

// A generator expression runs in the frame that made it, lazily; once that frame has ended, the
// copy of its names the generator keeps must not keep the generator (and so the module) alive.
TEST(Robustness, GeneratorsThatOutliveTheirFrameDoNotLeak) {
  std::weak_ptr<ModuleObj> module;
  {
    Interpreter in;
    module = in.load_module(src("def unfinished(xs):\n    g = (x for x in xs)\n    return next(g)\n"
                                "def returned(xs):\n    g = (x * 2 for x in xs)\n    next(g)\n    return g\n"
                                "first = unfinished([4, 5])\nrest = list(returned([1, 2, 3]))\n"
                                "kept = returned([1, 2])\nat_module = (y for y in range(3))\n"
                                "assert first == 4 and rest == [4, 6]\n"));
    EXPECT_FALSE(module.expired());
  }
  EXPECT_TRUE(module.expired());
}

TEST(Robustness, CompiledModuleRunsInFreshInterpreters) {
  std::shared_ptr<const CompiledModule> compiled;
  {
    Interpreter compiler;
    compiled = compiler.compile(src("calls = [0]\ndef f():\n    calls[0] += 1\n    return calls[0]\n"));
  }
  for (int run_idx = 0; run_idx < 3; ++run_idx) {
    Interpreter in;
    auto m = in.load_module(compiled);
    EXPECT_EQ(in.call(m->get_attr(in, "f"), {}).as_int(), 1);  // no state from earlier interpreters
  }
}

}  // namespace
}  // namespace nki
