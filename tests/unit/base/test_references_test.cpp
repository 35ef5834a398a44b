// Every test file a source comment points to exists (issue 14: headers such as round.h,
// kernel_runner.h and ast_printer.h named tests that did not exist, so a reader looking for the
// behaviour's test found nothing).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

TEST(TestReferences, EveryTestFileNamedInTheSourcesExists) {
  const fs::path root = ACCELOPT_SOURCE_DIR;
  const std::regex reference(R"(tests/[A-Za-z0-9_/]+\.(cpp|h|py))");
  int references = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), reference), end; it != end; ++it) {
      ++references;
      EXPECT_TRUE(fs::exists(root / it->str())) << fs::relative(entry.path(), root).string() << " names " << it->str()
                                                << ", which does not exist";
    }
  }
  EXPECT_GT(references, 20);  // the scan found the comments it is about
}

}  // namespace
