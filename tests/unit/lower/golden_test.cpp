// Golden lowering files: tests/golden/lower/NAME.trace (records in the trace_text form) is
// lowered and compared with NAME.lowered (lower::format_lowered, one line per record). A first
// line "# lower: RULES" chooses the rules (parse_rules; default all). A NAME containing
// "_not_" is a case where the rule named before "_not_" must not fire: no output record may
// carry that rule. ACCELOPT_UPDATE_GOLDEN=1 rewrites the .lowered files (review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lower/lowering.h"
#include "trn/trace_text.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

const fs::path kGoldenDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/lower";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

lower::Options options_of(const std::string& text) {
  const std::string key = "# lower: ";
  if (text.rfind(key, 0) != 0) return {};
  return lower::parse_rules(text.substr(key.size(), text.find('\n') - key.size()));
}

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kGoldenDir))
    if (e.path().extension() == ".trace") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(LowerGolden, EveryTraceLowersToItsExpectedForm) {
  const bool update = std::getenv("ACCELOPT_UPDATE_GOLDEN") != nullptr;
  int checked = 0;
  for (const fs::path& path : cases()) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = read(path);
    std::istringstream in(text);
    trn::TextTrace trace = trn::parse_trace_text(in, path.filename().string());
    std::vector<trn::Record> lowered = lower::lower_trace(trace.records, options_of(text));
    std::string got;
    for (const auto& r : lowered) got += lower::format_lowered(r) + "\n";
    fs::path expected = path;
    expected.replace_extension(".lowered");
    if (update) std::ofstream(expected) << got;
    ASSERT_TRUE(fs::exists(expected)) << "missing " << expected << " (run with ACCELOPT_UPDATE_GOLDEN=1)";
    EXPECT_EQ(got, read(expected));
    const std::string name = path.stem().string();
    if (size_t neg = name.find("_not_"); neg != std::string::npos) {
      auto rule = lower::rule_named(name.substr(0, neg));
      ASSERT_TRUE(rule) << "no rule named " << name.substr(0, neg);
      for (const auto& rec : lowered) EXPECT_EQ(rec.lowered_by & lower::rule_bit(*rule), 0) << lower::format_lowered(rec);
      // With only that rule on, the trace comes out as it went in, in the same order.
      if (lower::rules_spec(options_of(text)) == lower::to_string(*rule)) {
        ASSERT_EQ(lowered.size(), trace.records.size());
        for (size_t i = 0; i < lowered.size(); ++i)
          EXPECT_EQ(trn::format_record(lowered[i]), trn::format_record(trace.records[i]));
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}
