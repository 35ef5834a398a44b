// `accelopt parse FILE [--emit tokens|ast|python]`: runs the front end and prints one stage.
//   tokens  one token per line with its span (golden format of tests/golden/nki/lex)
//   ast     the AST with line:col on every node (tests/golden/nki/parse)
//   python  the AST printed back as Python (what the rewrite agent emits)
#include <fmt/core.h>

#include "cli/command.h"
#include "cli/read_source.h"
#include "nki/ast_dump.h"
#include "nki/ast_printer.h"
#include "nki/lexer.h"
#include "nki/parser.h"

namespace {

struct ParseOptions {
  std::string file;
  std::string emit = "ast";
};

int run_parse(const ParseOptions& o) {
  auto text = cli::read_source_file(o.file);
  if (!text) return 1;
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{o.file, *text});
  try {
    if (o.emit == "tokens") {
      fmt::print("{}", nki::dump_tokens(nki::lex(src)));
      return 0;
    }
    auto module = nki::parse_module(src);
    fmt::print("{}", o.emit == "python" ? nki::print_module(*module) : nki::dump_ast(*module));
    return 0;
  } catch (const nki::NkiError& e) {
    fmt::print(stderr, "{}", nki::render(e.diag));
    return 1;
  }
}

cli::RunFn setup_parse(CLI::App& sub) {
  auto o = std::make_shared<ParseOptions>();
  sub.add_option("file", o->file, "Python source (kernel or reference)")->required();
  sub.add_option("--emit", o->emit, "stage to print: tokens, ast or python")
      ->check(CLI::IsMember({"tokens", "ast", "python"}));
  return [o] { return run_parse(*o); };
}

cli::CommandRegistrar reg("parse", "lex and parse a kernel or reference file and print a stage", setup_parse);

}  // namespace
