// The AST printer (nki/ast_printer.h) on whole files: every parser golden input and every bundled
// kernel and reference prints back as Python that parses to the same AST (locations aside), and
// printing is a fixed point (printing the reparsed AST gives the same text).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "nki/ast_dump.h"
#include "nki/ast_printer.h"
#include "nki/parser.h"
#include "support/test_paths.h"

namespace nki {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files() {
  std::vector<std::string> out;
  for (const char* dir : {"/tests/golden/nki/parse", "/nkibench/kernels", "/nkibench/reference", "/examples/add"}) {
    for (const auto& entry : fs::directory_iterator(std::string(ACCELOPT_SOURCE_DIR) + dir)) {
      if (entry.path().extension() != ".py") continue;
      // Inputs that are meant not to parse (unsupported or invalid Python) have no AST to print.
      std::string name = entry.path().filename().string();
      if (name.rfind("unsupported_", 0) == 0 || name.rfind("error_", 0) == 0) continue;
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::shared_ptr<const SourceFile> source(const std::string& path, const std::string& text) {
  return std::make_shared<SourceFile>(SourceFile{path, text});
}

TEST(Printer, EveryFileRoundTrips) {
  std::vector<std::string> paths = files();
  ASSERT_GT(paths.size(), 20u);
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::shared_ptr<ModuleAst> first;
    try {
      first = parse_module(source(path, text.str()));
    } catch (const NkiError& e) {
      continue;  // a golden input of a parse error: nothing to print
    }
    std::string printed = print_module(*first);
    std::shared_ptr<ModuleAst> second;
    try {
      second = parse_module(source(path, printed));
    } catch (const NkiError& e) {
      ADD_FAILURE() << "the printed file does not parse: " << e.diag.message << "\n" << printed;
      continue;
    }
    EXPECT_EQ(dump_ast(*first, false), dump_ast(*second, false));
    EXPECT_EQ(print_module(*second), printed);
  }
}

}  // namespace
}  // namespace nki
