// One process at a time in a run directory (issue 14, "Resume": two --resume of one run both ran).
#include "search/run_lock.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>

namespace search {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir() {
  fs::path dir = fs::temp_directory_path() / ("accelopt_run_lock_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(RunDirLock, ASecondHolderIsRefusedWithTheFirstNamed) {
  fs::path dir = fresh_dir();
  {
    RunDirLock first(dir.string());
    try {
      RunDirLock second(dir.string());
      FAIL() << "two holders of one run directory";
    } catch (const std::runtime_error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(dir.string() + " is in use by accelopt pid " + std::to_string(::getpid())), std::string::npos)
          << what;
      EXPECT_NE(what.find("lock"), std::string::npos) << what;
    }
  }
  // Released with its holder: the next process takes it.
  EXPECT_NO_THROW(RunDirLock again(dir.string()));
  fs::remove_all(dir);
}

TEST(RunDirLock, AMissingDirectoryIsAClearError) {
  EXPECT_THROW(RunDirLock lock("/nonexistent-accelopt-run"), std::runtime_error);
}

}  // namespace
}  // namespace search
