#include "base/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFile, ReplacesTheFileAndLeavesNoTemp) {
  fs::path dir = fresh_dir("replace");
  std::string path = (dir / "f.json").string();
  base::write_file_atomic(path, "one");
  base::write_file_atomic(path, "two");
  EXPECT_EQ(read(path), "two");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, TempNamesAreNeverReused) {
  std::set<std::string> names;
  for (int i = 0; i < 100; ++i) names.insert(base::unique_temp_name("/x/f"));
  EXPECT_EQ(names.size(), 100u);
  // A fixed "<path>.tmp" was shared by two writers of one path, and one renamed the other's
  // half-written file.
  EXPECT_EQ(names.count("/x/f.tmp"), 0u);
}

TEST(AtomicFile, RacingWritersOfOnePathLeaveOneWholeFile) {
  fs::path dir = fresh_dir("race");
  std::string path = (dir / "f").string();
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) base::write_file_atomic(path, std::string(4096, char('a' + t)));
    });
  for (auto& w : writers) w.join();
  std::string text = read(path);
  ASSERT_EQ(text.size(), 4096u);
  EXPECT_EQ(text.find_first_not_of(text[0]), std::string::npos);  // one writer's content, whole
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, UnwritableDirectoryIsAClearError) {
  try {
    base::write_file_atomic("/nonexistent-dir-accelopt/f", "x");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-accelopt/f"), std::string::npos) << e.what();
  }
}

}  // namespace
