// Runs the numpy snippets of tests/golden/numpy/*.py through the interpreter and compares what
// they print with the .out file next to them, which real python3 + numpy 1.24 produced
// (regenerate with tests/golden/numpy/update.sh and review the diff).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nki/interpreter.h"
#include "nki/lib/modules.h"
#include "support/test_paths.h"

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

// Whether two printed lines say the same thing. Tokens must match exactly, except numbers that
// differ only in the last digits a float32 computation leaves to the machine: numpy's own float32
// matmuls and sums go through OpenBLAS kernels chosen by CPU, so the same snippet prints
// -9.85657e-01 on one machine and -9.85656e-01 on another (both numpy 1.24). Such numbers must
// agree to 4e-6 relative (a few float32 ulps) and be printed in the same form (same length).
bool same_line(const std::string& got, const std::string& want) {
  if (got == want) return true;
  std::istringstream g(got), w(want);
  std::string a, b;
  while (true) {
    bool more_a = static_cast<bool>(g >> a), more_b = static_cast<bool>(w >> b);
    if (more_a != more_b) return false;
    if (!more_a) return true;
    if (a == b) continue;
    if (a.size() != b.size()) return false;
    auto number = [](const std::string& t, double& v) {
      std::string core = t;
      while (!core.empty() && (core.back() == ',' || core.back() == ')' || core.back() == ']')) core.pop_back();
      while (!core.empty() && (core.front() == '(' || core.front() == '[')) core.erase(0, 1);
      if (core.empty() || core.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
      char* end = nullptr;
      v = std::strtod(core.c_str(), &end);
      return end && *end == '\0';
    };
    double x = 0, y = 0;
    if (!number(a, x) || !number(b, y)) return false;
    if (std::abs(x - y) > 4e-6 * std::max(std::abs(x), std::abs(y))) return false;
  }
}

TEST(NumpyGolden, SameLineToleratesOnlyFloat32LastDigits) {
  EXPECT_TRUE(same_line("(2, 8, 8) -9.85656e-01", "(2, 8, 8) -9.85657e-01"));
  EXPECT_FALSE(same_line("(2, 8, 8) -9.85606e-01", "(2, 8, 8) -9.85657e-01"));
  EXPECT_FALSE(same_line("(2, 8, 9) -9.85657e-01", "(2, 8, 8) -9.85657e-01"));
  EXPECT_FALSE(same_line("-0.985656", "-9.85657e-01"));
  EXPECT_FALSE(same_line("float32 1.0", "float64 1.0"));
  EXPECT_FALSE(same_line("1.0", "1.0 2.0"));
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
      EXPECT_TRUE(same_line(g, w)) << py.filename().string() << " output line " << line << "\n got: " << g
                                   << "\nwant: " << w << "\nfull output:\n" << got;
      if (!same_line(g, w)) break;
    }
  }
}

}  // namespace
}  // namespace nki::lib
