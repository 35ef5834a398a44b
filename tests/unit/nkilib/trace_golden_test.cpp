// Golden traces: tests/golden/trace/NAME.py (a kernel with INPUT_SHAPES) is run in trace-only
// mode and its formatted trace compared with NAME.trace. Adding a case = adding the two files;
// ACCELOPT_UPDATE_GOLDEN=1 rewrites the .trace files (review the diff).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel_harness.h"
#include "trn/trace_text.h"
#include "support/test_paths.h"

namespace nki::lib {
namespace {

namespace fs = std::filesystem;
using testing::Harness;

std::vector<tensor::Array> shape_only_inputs(Interpreter& in, ModuleObj& mod) {
  std::vector<tensor::Array> inputs;
  auto it = mod.attrs.find("INPUT_SHAPES");
  if (it == mod.attrs.end()) return inputs;
  auto* list = it->second.as<ListObj>();
  if (!list) return inputs;
  for (auto& shape : list->items) inputs.push_back(tensor::Array::shape_only(to_int_list(shape, "shape"), tensor::DType::Float32));
  return inputs;
}

std::string trace_of(const fs::path& py, bool numerics) {
  Harness h;
  auto mod = h.load_text(py.filename().string(), testing::read_file(py.string()));
  auto inputs = shape_only_inputs(h.in, *mod);
  if (numerics)
    for (auto& a : inputs) a = testing::test_input(a.shape(), 1);
  trn::TraceBuffer buffer;
  h.run_module(*mod, inputs, numerics, &buffer);
  return trn::format_trace(buffer.records);
}

std::vector<fs::path> golden_cases() {
  std::vector<fs::path> cases;
  for (auto& e : fs::directory_iterator(fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/trace"))
    if (e.path().extension() == ".py") cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  return cases;
}

TEST(TraceGolden, MatchesExpectedTraces) {
  bool update = std::getenv("ACCELOPT_UPDATE_GOLDEN") != nullptr;
  auto cases = golden_cases();
  ASSERT_FALSE(cases.empty());
  for (auto& py : cases) {
    SCOPED_TRACE(py.string());
    std::string got = trace_of(py, false);
    fs::path expected = fs::path(py).replace_extension(".trace");
    if (update) {
      std::ofstream(expected) << got;
      continue;
    }
    ASSERT_TRUE(fs::exists(expected)) << "missing " << expected << " (run with ACCELOPT_UPDATE_GOLDEN=1)";
    EXPECT_EQ(got, testing::read_file(expected.string()));
    // The one trace text form: what a kernel's trace prints parses back to the same lines.
    std::istringstream text(got);
    EXPECT_EQ(trn::format_trace(trn::parse_trace_text(text, expected.filename().string()).records), got);
  }
}

// Trace-only mode must describe exactly the instructions a numerics run executes.
TEST(TraceGolden, TraceOnlyModeEqualsNumericsTrace) {
  for (auto& py : golden_cases()) {
    SCOPED_TRACE(py.string());
    EXPECT_EQ(trace_of(py, false), trace_of(py, true));
  }
}

}  // namespace
}  // namespace nki::lib
