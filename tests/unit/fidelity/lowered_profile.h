// Shared by the compiler-stage style tests (accumulation_styles_test, lowering_styles_test):
// profile a kernel of tests/golden/lower/nki/ through the compiler stage and count what one rule
// did, and make the variant of a kernel whose loop is a sequential_range (the compiler keeps such
// a loop's program order, so its rules stay off).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "eval/profile_run.h"
#include "lower/options.h"
#include "support/test_paths.h"

namespace lowered_profile {

namespace fs = std::filesystem;

inline const fs::path kDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/lower/nki";

struct Measured {
  double latency_us = 0;
  uint64_t changes = 0;  // records the counted rule created, rewrote or removed
};

// Profiles `kernel` against `reference` (both under kDir unless absolute) on trn1 with `rules`.
inline Measured profile(const fs::path& reference, const fs::path& kernel, lower::Rule counted,
                        const std::string& rules = "all") {
  eval::TraceRequest req = eval::trace_request_from_files((kDir / reference).string(), (kDir / kernel).string());
  eval::ProfileRun run = eval::profile_kernel(req, "trn1", {.lowering = lower::parse_rules(rules)});
  EXPECT_EQ(run.status, eval::Status::Ok) << (run.diagnostics.empty() ? "" : run.diagnostics.front());
  Measured out;
  if (run.profile) out.latency_us = run.profile->latency * 1e3;
  for (const auto& [rule, stats] : run.lowering)
    if (rule == counted) out.changes += stats.changed + stats.removed;
  return out;
}

// A temporary copy of kDir/name in which the first occurrence of `loop` (text that contains an
// `nl.affine_range`) has that affine_range made an nl.sequential_range; the caller removes it.
inline fs::path with_sequential_loop(const std::string& name, const std::string& loop) {
  std::ifstream in(kDir / name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t at = text.find(loop);
  EXPECT_NE(at, std::string::npos) << name << ": no `" << loop << "`";
  const std::string affine = "nl.affine_range";
  if (at != std::string::npos) at = text.find(affine, at);
  EXPECT_NE(at, std::string::npos) << "`" << loop << "` has no " << affine;
  if (at != std::string::npos) text.replace(at, affine.size(), "nl.sequential_range");
  fs::path path = fs::temp_directory_path() / fmt::format("accelopt_seq_{}_{}", ::getpid(), name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace lowered_profile
