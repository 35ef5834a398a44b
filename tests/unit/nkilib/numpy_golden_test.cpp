// Runs the numpy snippets of tests/golden/numpy/*.py through the interpreter and compares what
// they print with the .out file next to them, which real python3 + numpy 1.24 produced
// (regenerate with tests/golden/numpy/update.sh and review the diff).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "nki/interpreter.h"
#include "nki/lib/modules.h"

namespace nki::lib {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string run_snippet(const fs::path& path) {
  Interpreter in;
  install_builtin_modules(in);
  in.register_module("numpy", make_numpy_module);
  auto src = std::make_shared<SourceFile>();
  src->path = path.string();
  src->text = read_file(path);
  try {
    in.load_module(src);
  } catch (const NkiError& e) {
    return in.output() + "\n" + render(e.diag);
  }
  return in.output();
}

std::vector<fs::path> snippets() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/numpy"))
    if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(NumpyGolden, SnippetsPrintWhatNumpyPrints) {
  auto files = snippets();
  ASSERT_GE(files.size(), 4u);
  for (const fs::path& py : files) {
    fs::path out = py;
    out.replace_extension(".out");
    std::string want = read_file(out), got = run_snippet(py);
    std::istringstream want_lines(want), got_lines(got);
    std::string w, g;
    int line = 0;
    while (std::getline(want_lines, w)) {
      ++line;
      if (!std::getline(got_lines, g)) g = "<missing>";
      EXPECT_EQ(g, w) << py.filename().string() << " output line " << line << "\nfull output:\n" << got;
      if (g != w) break;
    }
  }
}

}  // namespace
}  // namespace nki::lib
