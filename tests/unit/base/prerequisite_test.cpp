// ACCELOPT_REQUIRE (tests/support/prerequisite.h): a missing prerequisite skips a test on a
// developer's machine and fails it under CI (issue 14: the OptimizeE2E fixture skipped 9 tests
// when `eval` broke and the Slurm tests skipped when `sinfo` failed, which turned CI green).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "support/prerequisite.h"

namespace {

// Sets CI for the scope, restoring what was there.
class ScopedCi {
 public:
  explicit ScopedCi(const char* value) {
    if (const char* old = std::getenv("CI")) old_ = old;
    if (value) ::setenv("CI", value, 1);
    else ::unsetenv("CI");
  }
  ~ScopedCi() {
    if (old_) ::setenv("CI", old_->c_str(), 1);
    else ::unsetenv("CI");
  }

 private:
  std::optional<std::string> old_;
};

bool reached_after_require = false;

void require_missing() {
  reached_after_require = false;
  ACCELOPT_REQUIRE(false, "no such tool");
  reached_after_require = true;
}

TEST(Prerequisite, UnderCiAMissingPrerequisiteFailsTheTest) {
  ScopedCi ci("true");
  EXPECT_FATAL_FAILURE(require_missing(), "prerequisite missing (CI=true, so this fails instead of skipping): no such tool");
  EXPECT_FALSE(reached_after_require);
}

TEST(Prerequisite, OutsideCiItSkipsAndAPresentOneRuns) {
  ScopedCi ci(nullptr);
  EXPECT_FALSE(accelopt_test::in_ci());
  {
    ScopedCi one("1");
    EXPECT_TRUE(accelopt_test::in_ci());
  }
  ACCELOPT_REQUIRE(true, "present");
  SUCCEED();
}

}  // namespace
