// A rewrite that needs a module the kernel's file does not import (an engine move turns `nl.add`
// into `nisa.tensor_scalar(..., engine=nisa.gpsimd_engine)` in a file that imports only `nl`)
// adds the import where the file's imports are, in the file's dialect, and nowhere else: the
// kernel body keeps the import statements it had.
#include <gtest/gtest.h>

#include <sstream>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::CorpusKernel;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool is_import(const std::string& line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string::npos) return false;
  return line.compare(i, 7, "import ") == 0 || line.compare(i, 5, "from ") == 0;
}

struct Imports {
  std::vector<std::string> top;     // at column 0, in file order
  std::vector<size_t> top_at;       // their line indices
  std::vector<std::string> nested;  // indented (inside a function), in file order
};

Imports imports_of(const std::string& text) {
  Imports im;
  auto lines = lines_of(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_import(lines[i])) continue;
    if (lines[i][0] == ' ') {
      im.nested.push_back(lines[i].substr(lines[i].find_first_not_of(' ')));
    } else {
      im.top.push_back(lines[i]);
      im.top_at.push_back(i);
    }
  }
  return im;
}

// The printed text's imports are the input's, plus new ones directly after the input's last
// top-level import; returns the added lines.
std::vector<std::string> added_imports(const std::string& before, const std::string& after, const std::string& what) {
  Imports a = imports_of(before), b = imports_of(after);
  EXPECT_EQ(a.nested, b.nested) << what << ": the kernel body's imports changed";
  EXPECT_GE(b.top.size(), a.top.size()) << what;
  if (b.top.size() < a.top.size() || a.top.empty()) return {};
  for (size_t i = 0; i < a.top.size(); ++i) EXPECT_EQ(a.top[i], b.top[i]) << what;
  std::vector<std::string> added(b.top.begin() + static_cast<long>(a.top.size()), b.top.end());
  for (size_t i = a.top.size(); i < b.top.size(); ++i)
    EXPECT_EQ(b.top_at[i], b.top_at[i - 1] + 1) << what << ": " << b.top[i] << " is not with the file's imports";
  return added;
}

std::string apply_first(const std::string& path, const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                        const std::string& transform, const std::string& engine) {
  auto form = loopnest::lift_source(path, text, args);
  for (const auto& s : loopnest::find_sites(form))
    if (s.transform == transform && s.params.count("engine") && s.params.at("engine") == engine)
      return loopnest::apply_site(path, text, args, s);
  return "";
}

TEST(LoopNestEmitImports, AnEngineMoveImportsIsaWithTheFilesImportsInEveryStyle) {
  int moved = 0, imported = 0;
  for (const CorpusKernel& k : loopnest_test::corpus()) {
    if (k.path.rfind("nkibench/", 0) != 0 && k.path.rfind("tests/kernels/", 0) != 0) continue;
    std::string out;
    try {
      out = apply_first(k.path, k.text, k.args, "engine_assign", "gpsimd");
    } catch (const loopnest::LiftError&) {
      continue;  // kernels the form does not hold are reported by the lift tests
    }
    if (out.empty()) continue;
    ++moved;
    auto added = added_imports(k.text, out, k.path);
    bool had_isa = k.text.find("nki.isa") != std::string::npos;
    if (had_isa) {
      EXPECT_TRUE(added.empty()) << k.path << ": added " << added.front();
    } else {
      ++imported;
      ASSERT_EQ(added.size(), 1u) << k.path;
      // In the file's dialect: a newer-API file (`import nki`) gets the newer module.
      bool legacy = k.text.find("neuronxcc") != std::string::npos;
      EXPECT_EQ(added[0], legacy ? "import neuronxcc.nki.isa as nisa" : "import nki.isa as nisa") << k.path;
      EXPECT_NE(out.find("engine=nisa.gpsimd_engine"), std::string::npos) << k.path;
    }
  }
  // Bundled, legacy_grid, nki_api, tutorial and decomposed kernels and the small test kernels
  // offer engine moves; the tutorial ones and tests/kernels/add_slices.py import no nisa.
  EXPECT_GE(moved, 30);
  EXPECT_GE(imported, 3);
}

TEST(LoopNestEmitImports, TheNewerApiGetsItsOwnModulePath) {
  const std::string text =
      "import nki\n"
      "import nki.language as nl\n"
      "\n"
      "\n"
      "@nki.jit\n"
      "def kernel(a, b):\n"
      "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    for i in nl.affine_range(a.shape[0] // 128):\n"
      "        ta = nl.load(a[i * 128:(i + 1) * 128, :])\n"
      "        tb = nl.load(b[i * 128:(i + 1) * 128, :])\n"
      "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(ta, tb))\n"
      "    return out\n";
  auto args = loopnest_test::arrays({{256, 512}, {256, 512}});
  std::string out = apply_first("add_rows_api.py", text, args, "engine_assign", "gpsimd");
  ASSERT_FALSE(out.empty()) << "no engine move on the newer-API kernel";
  auto added = added_imports(text, out, "add_rows_api.py");
  ASSERT_EQ(added.size(), 1u) << out;
  EXPECT_EQ(added[0], "import nki.isa as nisa");
}

}  // namespace
