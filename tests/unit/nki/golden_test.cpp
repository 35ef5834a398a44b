// Golden tests: every tests/golden/nki/<stage>/NAME.py has its expected output next to it.
//   lex/    NAME.tokens  (token dump)
//   parse/  NAME.ast     (AST dump with locations)
//   interp/ NAME.out     (stdout of `accelopt run NAME.py`), NAME.err when it must fail
//   diag/   NAME.err     (the rendered diagnostic of `accelopt run NAME.py`)
// ACCELOPT_UPDATE_GOLDEN=1 rewrites the expectations instead of comparing (review the diff).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "nki/ast_dump.h"
#include "nki/lexer.h"
#include "nki/parser.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

const fs::path kGoldenDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/nki";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool updating() {
  const char* v = std::getenv("ACCELOPT_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// Compares `actual` with the file (or rewrites it); an absent expectation file means "empty".
void check_golden(const fs::path& expected_path, const std::string& actual) {
  if (updating()) {
    if (actual.empty()) {
      fs::remove(expected_path);
    } else {
      std::ofstream(expected_path, std::ios::binary) << actual;
    }
    return;
  }
  std::string expected = fs::exists(expected_path) ? read_file(expected_path) : "";
  EXPECT_EQ(expected, actual) << "golden mismatch: " << expected_path.string()
                              << " (ACCELOPT_UPDATE_GOLDEN=1 rewrites it)";
}

std::vector<fs::path> cases(const std::string& stage) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(kGoldenDir / stage))
    if (entry.path().extension() == ".py") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Path relative to the repository, as shown in diagnostics (stable across checkouts).
std::string display_path(const fs::path& p) { return fs::relative(p, ACCELOPT_SOURCE_DIR).string(); }

std::shared_ptr<const nki::SourceFile> load(const fs::path& p) {
  return std::make_shared<nki::SourceFile>(nki::SourceFile{display_path(p), read_file(p)});
}

struct RunResult {
  std::string out, err;
};

RunResult run_binary(const fs::path& py) {
  fs::path err_file = fs::temp_directory_path() / ("nki_golden_" + std::to_string(::getpid()) + ".err");
  std::string cmd = std::string("cd '") + ACCELOPT_SOURCE_DIR + "' && '" + ACCELOPT_BINARY + "' run --max-steps 2000000 --max-seconds 20 '" +
                    display_path(py) + "' 2>'" + err_file.string() + "'";
  RunResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  pclose(pipe);
  r.err = read_file(err_file);
  fs::remove(err_file);
  return r;
}

TEST(Golden, Lex) {
  auto files = cases("lex");
  ASSERT_FALSE(files.empty());
  for (const fs::path& py : files) {
    SCOPED_TRACE(py.string());
    std::string actual;
    try {
      actual = nki::dump_tokens(nki::lex(load(py)));
    } catch (const nki::NkiError& e) {
      actual = nki::render(e.diag);
    }
    check_golden(fs::path(py).replace_extension(".tokens"), actual);
  }
}

TEST(Golden, Parse) {
  auto files = cases("parse");
  ASSERT_FALSE(files.empty());
  for (const fs::path& py : files) {
    SCOPED_TRACE(py.string());
    std::string actual;
    try {
      actual = nki::dump_ast(*nki::parse_module(load(py)));
    } catch (const nki::NkiError& e) {
      actual = nki::render(e.diag);
    }
    check_golden(fs::path(py).replace_extension(".ast"), actual);
  }
}

TEST(Golden, Interp) {
  auto files = cases("interp");
  ASSERT_FALSE(files.empty());
  for (const fs::path& py : files) {
    SCOPED_TRACE(py.string());
    RunResult r = run_binary(py);
    check_golden(fs::path(py).replace_extension(".out"), r.out);
    check_golden(fs::path(py).replace_extension(".err"), r.err);
  }
}

TEST(Golden, Diagnostics) {
  auto files = cases("diag");
  ASSERT_FALSE(files.empty());
  for (const fs::path& py : files) {
    SCOPED_TRACE(py.string());
    RunResult r = run_binary(py);
    if (!updating()) {
      EXPECT_FALSE(r.err.empty()) << "a diag case must fail: " << py.string();
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
    check_golden(fs::path(py).replace_extension(".err"), r.err);
    check_golden(fs::path(py).replace_extension(".out"), r.out);
  }
}

}  // namespace
