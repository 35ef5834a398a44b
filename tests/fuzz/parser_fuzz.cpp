// Fuzzes lex -> parse -> resolve -> print -> parse: any input must end in an AST or an NkiError
// (never a crash, hang or sanitizer report), and printing a parsed AST must give Python that
// parses back to the same AST.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nki/ast_dump.h"
#include "nki/ast_printer.h"
#include "nki/parser.h"
#include "nki/resolver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{"fuzz.py", std::string(reinterpret_cast<const char*>(data), size)});
  std::shared_ptr<nki::ModuleAst> module;
  try {
    module = nki::parse_module(src);
  } catch (const nki::NkiError& e) {
    (void)nki::render(e.diag);
    return 0;
  }
  std::string printed = nki::print_module(*module);
  std::string dump = nki::dump_ast(*module, false);
  auto reprinted_src = std::make_shared<nki::SourceFile>(nki::SourceFile{"printed.py", printed});
  try {
    auto again = nki::parse_module(reprinted_src);
    if (nki::dump_ast(*again, false) != dump) abort();  // the printer changed the program
  } catch (const nki::NkiError& e) {
    abort();  // the printer produced invalid Python
  }
  try {
    nki::resolve_module(*module, [](std::string_view) { return std::nullopt; });
  } catch (const nki::NkiError&) {
  }
  return 0;
}
