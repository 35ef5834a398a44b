// Lexer, parser, printer and diagnostics renderer.
#include <gtest/gtest.h>

#include "nki/ast_dump.h"
#include "nki/ast_printer.h"
#include "nki/lexer.h"
#include "nki/parser.h"
#include "support/test_paths.h"

namespace nki {
namespace {

std::shared_ptr<const SourceFile> src(std::string text, std::string path = "k.py") {
  return std::make_shared<SourceFile>(SourceFile{std::move(path), std::move(text)});
}

std::vector<TokenKind> kinds(const std::string& text) {
  std::vector<TokenKind> out;
  for (const Token& t : lex(src(text)).tokens) out.push_back(t.kind);
  return out;
}

NkiError parse_error(const std::string& text) {
  try {
    parse_module(src(text));
  } catch (const NkiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a parse error for: " << text;
  return NkiError(ErrorKind::Internal, "no error");
}

TEST(Lexer, IndentationProducesIndentAndDedent) {
  using K = TokenKind;
  EXPECT_EQ(kinds("if a:\n    b\nc\n"),
            (std::vector<K>{K::Keyword, K::Name, K::Op, K::Newline, K::Indent, K::Name, K::Newline, K::Dedent, K::Name,
                            K::Newline, K::End}));
}

TEST(Lexer, BracketsJoinLinesAndBackslashContinues) {
  using K = TokenKind;
  EXPECT_EQ(kinds("x = (1,\n 2)\n"), (std::vector<K>{K::Name, K::Op, K::Op, K::Int, K::Op, K::Int, K::Op, K::Newline, K::End}));
  EXPECT_EQ(kinds("x = 1 + \\\n 2\n"), (std::vector<K>{K::Name, K::Op, K::Int, K::Op, K::Int, K::Newline, K::End}));
}

TEST(Lexer, LiteralValuesAndSpans) {
  LexResult r = lex(src("a = 0x10 + 1_000 + 2.5e-3 + 'a\\tb'  # c\n"));
  EXPECT_EQ(r.tokens[2].int_value, 16);
  EXPECT_EQ(r.tokens[4].int_value, 1000);
  EXPECT_DOUBLE_EQ(r.tokens[6].float_value, 2.5e-3);
  EXPECT_EQ(r.tokens[8].str_value, "a\tb");
  EXPECT_EQ(r.tokens[8].span.col, 29u);
  EXPECT_EQ(r.tokens[8].span.end_col, 35u);
  ASSERT_EQ(r.comments.size(), 1u);
  EXPECT_EQ(r.comments[0].text, "# c");
  EXPECT_FALSE(r.comments[0].own_line);
}

TEST(Lexer, ErrorsAreLocated) {
  try {
    lex(src("x = 1\ny = 'open\n"));
    FAIL();
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Syntax);
    EXPECT_EQ(e.diag.loc.line, 2u);
    EXPECT_EQ(e.diag.loc.col, 5u);
  }
  EXPECT_THROW(lex(src("x = 99999999999999999999\n")), NkiError);
  EXPECT_THROW(lex(src("x = (1, 2]\n")), NkiError);
}

TEST(Parser, UnsupportedConstructsNameTheFeature) {
  struct Case {
    const char* code;
    const char* message;
  };
  const Case cases[] = {
      {"class A(metaclass=M):\n    pass\n", "class keywords (metaclass=...) are not supported in kernels"},
      {"try:\n    pass\nexcept* E:\n    pass\n", "'except*' (exception groups) is not supported in kernels"},
      {"def g():\n    yield 1\n", "'yield' (generators) is not supported in kernels"},
      {"async def g():\n    pass\n", "'async' code is not supported in kernels"},
      {"@(lambda f: f)\ndef g():\n    pass\n", "decorators other than names, attributes and calls are not supported in kernels"},
  };
  for (const Case& c : cases) {
    NkiError e = parse_error(c.code);
    EXPECT_EQ(e.diag.kind, ErrorKind::Unsupported) << c.code;
    EXPECT_EQ(e.diag.message, c.message) << c.code;
  }
}

TEST(Parser, SyntaxErrorsPointAtTheProblem) {
  NkiError e = parse_error("def f(x)\n    return x\n");
  EXPECT_EQ(e.diag.kind, ErrorKind::Syntax);
  EXPECT_EQ(e.diag.loc.line, 1u);
  EXPECT_EQ(e.diag.loc.col, 9u);
  NkiError unclosed = parse_error("y = f(a,\n");
  EXPECT_EQ(unclosed.diag.kind, ErrorKind::Syntax);
  EXPECT_EQ(parse_error("f(x) = 1\n").diag.message, "cannot assign to function call");
  // Assignment expressions: a name target, and parentheses where Python requires them.
  EXPECT_EQ(parse_error("x := 1\n").diag.kind, ErrorKind::Syntax);
  EXPECT_EQ(parse_error("y = (a.b := 1)\n").diag.message,
            "cannot use an assignment expression (':=') with this target; the target must be a name");
  EXPECT_EQ(parse_error("y = a[i := 1:2]\n").diag.message, "an assignment expression in a slice bound needs parentheses");
  EXPECT_EQ(parse_error("f(k=x := 1)\n").diag.kind, ErrorKind::Syntax);
  EXPECT_EQ(parse_error("a, b: int = 1, 2\n").diag.message, "only a single target (not a tuple) can be annotated");
  EXPECT_EQ(parse_error("try:\n    pass\n").diag.message, "expected 'except' or 'finally' block (unexpected end of file)");
  EXPECT_EQ(parse_error("except ValueError:\n    pass\n").diag.message, "'except' without a matching 'try'");
  EXPECT_EQ(parse_error("del f(x)\n").diag.message, "cannot delete function call");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  EXPECT_EQ(parse_error("x = " + deep + "\n").diag.kind, ErrorKind::Syntax);
  std::string minus(100000, '-');
  EXPECT_EQ(parse_error("x = " + minus + "1\n").diag.kind, ErrorKind::Syntax);
}

TEST(Parser, NodesKeepLocations) {
  auto m = parse_module(src("x = nl.load(a[i * 256:(i + 1) * 256, :])\n"));
  auto& assign = static_cast<AssignStmt&>(*m->body[0]);
  auto& call = static_cast<CallExpr&>(*assign.value);
  EXPECT_EQ(call.span.col, 5u);
  EXPECT_EQ(call.args[0]->span.col, 13u);
  EXPECT_EQ(call.args[0]->span.end_col, 40u);
}

// parse -> print -> parse gives the same AST (modulo locations).
void expect_round_trip(const std::string& code) {
  auto first = parse_module(src(code));
  std::string printed = print_module(*first);
  std::shared_ptr<ModuleAst> second;
  try {
    second = parse_module(src(printed));
  } catch (const NkiError& e) {
    FAIL() << "printed code does not parse: " << e.diag.message << "\n" << printed;
  }
  EXPECT_EQ(dump_ast(*first, false), dump_ast(*second, false)) << printed;
}

TEST(Printer, RoundTripsEveryConstruct) {
  expect_round_trip(
      "import numpy as np\nfrom a.b import c as d, e\n@nki.jit\ndef k(a, b=1, *r, c, d=(1,), **kw) -> int:\n"
      "    '''doc'''\n    x = -(a + b) * c ** -2 // (d - e) % f @ g\n    y = (a if b else c) if d else e\n"
      "    z = not (a and b) or c and (d or e)\n    w = [i for i, j in zip(a, b) if i if j], {k: v for k in a}\n"
      "    v = {1, 2}, {'a': 1, **kw}, (x for x in a), lambda q, r=1: q\n    t[i, 1:2, ::3, ..., None] += 1\n"
      "    a, *b = c = d\n    s = f(*a, k=1, **kw), f'{x!r:>3} {{}}', (1).real, a.b.c[0](1)\n"
      "    assert (a, b), 'm'\n    while a < b <= c is not d not in e:\n        break\n"
      "    for (a, b), c in d:\n        continue\n    if a:\n        pass\n    elif b:\n        return\n"
      "    else:\n        return a, b\n    u = (a - b) - (c - d)\n    p = 2 ** 3 ** 2, (2 ** 3) ** 2, -2 ** 2, (-2) ** 2\n");
}

// The statements beyond the basic subset: classes, with, try/except/finally, raise, global,
// nonlocal, del, for/while-else, annotations and assignment expressions.
TEST(Printer, RoundTripsScopesAndExceptions) {
  expect_round_trip(
      "@dec\nclass A(B):\n    n: int = 1\n    m: float\n\n    def __init__(self, x):\n        self.x = x\n\n\n"
      "def f(a):\n    global g\n    with nki.compiler.no_reorder(), open_it(a) as (p, q):\n        pass\n"
      "    try:\n        raise ValueError('x') from a\n    except (KeyError, IndexError) as e:\n        raise\n"
      "    except Exception:\n        pass\n    else:\n        del a[0], b\n    finally:\n        pass\n"
      "    for i in a:\n        break\n    else:\n        pass\n    while (n := n - 1) > 0:\n        f((k := 2), m[j := 1])\n"
      "    else:\n        pass\n\n    def h():\n        nonlocal a\n        a = [y for x in a if (y := x)]\n");
}

// Found by the fuzzer: quotes inside f-string expressions and escapes in f-string literals.
TEST(Printer, RoundTripsFStrings) {
  expect_round_trip(R"py(print(f"{'x'} {a!r:>3}", f'{"y"}', f'''{'a' + "b"}''', f'a\x00{b}\x07 {{}}'))py" "\n");
  expect_round_trip(std::string("x = f'a") + '\0' + "{b}\a'\n");  // raw control bytes in the literal
  expect_round_trip("x = f\"{a:'>10}\"\n");  // a quote in the format spec
  expect_round_trip("x = f'{a}|' 'b' f'c{d}' 'e'\n");  // adjacent literals merge
}

TEST(Printer, RoundTripsTheBenchmarkFiles) {
  for (const char* name : {"kernels/rope_single_freq_apply_B1_H64_N4096_D128_0.py", "kernels/mamba_M7168_C256_S16_0.py",
                           "reference/adamw_M10944_N2048.py", "reference/gqa_full_B1_N4096_QH16_KH8_D128.py"}) {
    std::string path = std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/" + name;
    FILE* f = fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    std::string text;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    fclose(f);
    SCOPED_TRACE(name);
    expect_round_trip(text);
  }
}

TEST(Printer, KeepsCommentsWithTheirStatements) {
  auto m = parse_module(src("# header\nx = 1  # one\n\n# before y\ny = 2\n# trailing\n"));
  EXPECT_EQ(print_module(*m), "# header\nx = 1  # one\n# before y\ny = 2\n# trailing\n");
}

TEST(Printer, MinimalParentheses) {
  auto m = parse_module(src("x = ((a + b)) * (c)\ny = a + (b * c)\nz = (a - b) - c\n"));
  EXPECT_EQ(print_module(*m), "x = (a + b) * c\ny = a + b * c\nz = a - b - c\n");
}

TEST(Diagnostics, RendersCaretUnderTheRange) {
  Diagnostic d;
  d.kind = ErrorKind::Rule;
  d.message = "partition dimension 256 exceeds the 128 SBUF partitions";
  auto file = src("\n\n\n\n\n\n\n\n\n\n\n\n\n    a_tile = nl.load(a[i * 256:(i + 1) * 256, :])\n", "kernels/matmul.py");
  d.loc = SourceLoc{file, 14, 22, 49};
  d.notes.push_back({SourceLoc{file, 9, 5, 0}, "tile size chosen here"});
  EXPECT_EQ(render(d),
            "kernels/matmul.py:14:22: error: partition dimension 256 exceeds the 128 SBUF partitions\n"
            "   14 |     a_tile = nl.load(a[i * 256:(i + 1) * 256, :])\n"
            "      |                      ^~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
            "kernels/matmul.py:9:5: note: tile size chosen here\n");
}

TEST(Diagnostics, WithoutLocationOrSource) {
  Diagnostic d;
  d.message = "no location";
  EXPECT_EQ(render(d), "error: no location\n");
  d.loc = SourceLoc{src("x\n", "f.py"), 7, 1, 0};  // line beyond the file: header only
  EXPECT_EQ(render(d), "f.py:7:1: error: no location\n");
}

}  // namespace
}  // namespace nki
