// Kernel files as people publish them (tests/kernels/published/: an NKI tutorial with three
// versions, a benchmark wrapper and an argparse driver; an nki-samples file importing torch and
// pytest with a test class; a course assignment with a baremetal timing loop) run unchanged on
// examples/add, with --entry where the file holds several kernels. The error messages of the
// paths around them are goldens (tests/golden/published/, ACCELOPT_UPDATE_GOLDEN=1 rewrites them).
#include <cstdlib>

#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kRef = "examples/add/reference.py";
const std::string kDir = "tests/kernels/published/";

void check_golden(const std::string& name, const std::string& actual) {
  std::string path = source("tests/golden/published/" + name);
  const char* update = std::getenv("ACCELOPT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    spit(path, actual);
    return;
  }
  EXPECT_EQ(slurp(path), actual) << "golden mismatch: " << path << " (ACCELOPT_UPDATE_GOLDEN=1 rewrites it)";
}

std::string diagnostics(const CliRun& r) {
  std::string out;
  const nlohmann::json j = r.json();  // held: a range over a temporary's member would dangle
  for (const auto& d : j["diagnostics"]) out += d.get<std::string>() + "\n";
  return out;
}

CliRun eval(const TempDir& tmp, const std::string& file, const std::string& extra = "") {
  return accelopt(tmp.path(), "eval --reference " + kRef + " --kernel " + kDir + file + " --seeds 0,21 --json " + extra);
}

void expect_correct(const CliRun& r, const std::string& what) {
  ASSERT_EQ(r.exit_code, 0) << what << "\n" << r.err << r.out;
  EXPECT_EQ(r.json()["status"], "ok") << what;
}

TEST(PublishedKernels, TutorialWithThreeVersionsRunsEachByEntry) {
  TempDir tmp;
  CliRun none = eval(tmp, "tutorial_versions.py", "--no-profile");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.json()["status"], "compile_error");
  check_golden("tutorial_without_entry.txt", diagnostics(none));
  for (const char* entry : {"add_v1", "add_v2", "add_v3"}) {
    CliRun r = eval(tmp, "tutorial_versions.py", std::string("--entry ") + entry);
    expect_correct(r, entry);
    EXPECT_GT(r.json()["profile"]["latency"].get<double>(), 0) << entry;
  }
  // The benchmark wrapper runs too: it launches add_v3.
  expect_correct(eval(tmp, "tutorial_versions.py", "--entry bench_v3 --no-profile"), "bench_v3");
  for (const char* command : {"profile", "trace"}) {
    CliRun r = accelopt(tmp.path(), std::string(command) + " --reference " + kRef + " --kernel " + kDir +
                                        "tutorial_versions.py --entry add_v2");
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    EXPECT_FALSE(r.out.empty()) << command;
  }
}

TEST(PublishedKernels, SamplesStyleFileWithTorchAndPytestRunsWithoutEntry) {
  TempDir tmp;
  expect_correct(eval(tmp, "samples_style.py"), "samples_style.py");
}

TEST(PublishedKernels, CourseAssignmentRunsByEntry) {
  TempDir tmp;
  CliRun none = eval(tmp, "course_assignment.py", "--no-profile");
  EXPECT_EQ(none.json()["status"], "compile_error");
  check_golden("course_without_entry.txt", diagnostics(none));
  expect_correct(eval(tmp, "course_assignment.py", "--entry vector_add_tiled"), "vector_add_tiled");
  expect_correct(eval(tmp, "course_assignment.py", "--entry vector_add_naive --no-profile"), "vector_add_naive");
  CliRun wrong = eval(tmp, "course_assignment.py", "--entry vector_add --no-profile");
  EXPECT_EQ(wrong.json()["status"], "compile_error");
  check_golden("course_wrong_entry.txt", diagnostics(wrong));
}

// `rewrite` and `parse --emit loops` read the function `eval --entry` runs: the same option, the
// same default and the same errors, and the rewrite edits that function only.
TEST(PublishedKernels, RewriteAndLoopsReadTheFunctionTheEntryRuns) {
  TempDir tmp;
  const std::string file = kDir + "tutorial_versions.py";
  const std::string text = slurp(source(file));
  for (const std::string& command : {"rewrite --kernel " + file, "parse " + file + " --emit loops"}) {
    CliRun none = accelopt(tmp.path(), command + " --reference " + kRef);
    EXPECT_EQ(none.exit_code, 1) << command << "\n" << none.out;
    EXPECT_TRUE(none.out.empty()) << command << "\n" << none.out;
    check_golden("tutorial_without_entry.txt", none.err);  // eval's own diagnostic, word for word
    CliRun wrong = accelopt(tmp.path(), command + " --reference " + kRef + " --entry add_v9");
    EXPECT_EQ(wrong.exit_code, 1) << command;
    EXPECT_NE(wrong.err.find("no function named 'add_v9' (its kernels: 'add_v1', 'add_v2', 'add_v3')"),
              std::string::npos)
        << command << "\n" << wrong.err;
  }
  CliRun loops = accelopt(tmp.path(), "parse " + file + " --emit loops --reference " + kRef + " --entry add_v3");
  ASSERT_EQ(loops.exit_code, 0) << loops.err;
  check_golden("tutorial_add_v3.loops.txt", loops.out);
  CliRun sites = accelopt(tmp.path(), "rewrite --kernel " + file + " --reference " + kRef + " --entry add_v2");
  ASSERT_EQ(sites.exit_code, 0) << sites.err;
  check_golden("tutorial_add_v2.sites.txt", sites.out);
  // Every site applies to add_v2 alone: add_v1 before it and the rest after it stay as they were.
  const size_t v2 = text.find("@nki.jit\ndef add_v2"), v3 = text.find("@nki.jit\ndef add_v3");
  ASSERT_NE(v2, std::string::npos);
  ASSERT_NE(v3, std::string::npos);
  CliRun listed = accelopt(tmp.path(), "rewrite --kernel " + file + " --reference " + kRef + " --entry add_v2 --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  ASSERT_FALSE(listed.json().empty());
  for (const auto& site : listed.json()) {
    std::string key = site["key"];
    CliRun applied = accelopt(tmp.path(), "rewrite --kernel " + file + " --reference " + kRef + " --entry add_v2 --apply " +
                                              quote(key));
    ASSERT_EQ(applied.exit_code, 0) << key << "\n" << applied.err;
    EXPECT_EQ(applied.out.substr(0, v2), text.substr(0, v2)) << key;
    size_t out_v3 = applied.out.find("@nki.jit\ndef add_v3");
    ASSERT_NE(out_v3, std::string::npos) << key;
    EXPECT_EQ(applied.out.substr(out_v3), text.substr(v3)) << key;
    EXPECT_NE(applied.out, text) << key;
    // The rewritten file still runs that version correctly.
    spit(tmp.path() + "/rewritten.py", applied.out);
    expect_correct(accelopt(tmp.path(), "eval --reference " + kRef + " --kernel " + tmp.path() +
                                            "/rewritten.py --seeds 0,21 --json --no-profile --entry add_v2"),
                   key);
  }
}

// A harness module used inside the kernel: refused at the use, compile_error, typed.
TEST(PublishedKernels, HostModuleUsedInTheKernelIsACompileErrorAtTheUse) {
  TempDir tmp;
  std::string text = slurp(source(kDir + "samples_style.py"));
  std::string from = "  num_tiles = a_input.shape[0] // nl.tile_size.pmax\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), from + "  torch.cuda.synchronize()\n");
  spit(tmp.path() + "/samples_style_torch.py", text);
  CliRun r = accelopt(tmp.path(), "eval --reference " + kRef + " --kernel " + tmp.path() +
                                      "/samples_style_torch.py --seeds 0 --no-profile --json");
  EXPECT_EQ(r.exit_code, 1);
  auto j = r.json();
  EXPECT_EQ(j["status"], "compile_error");
  EXPECT_EQ(j["failure"]["kind"], "host_only") << r.out;
  std::string d = diagnostics(r);
  d.replace(d.find(tmp.path()), tmp.path().size(), "TMP");
  check_golden("samples_torch_in_kernel.txt", d);
}

}  // namespace
}  // namespace bench_e2e
