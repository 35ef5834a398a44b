#include "agents/memory.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace agents {
namespace {

ExperienceItem item(const std::string& lesson, int round = 1) {
  ExperienceItem it;
  it.task = "silu";
  it.round = round;
  it.speedup = 1.5;
  it.plan = "fuse";
  it.key_change = "merged two loops";
  it.lesson = lesson;
  it.slow_code = "slow";
  it.fast_code = "fast";
  return it;
}

TEST(Memory, KeepsNewestFirstAndDropsOldest) {
  Memory memory(3);
  for (int i = 0; i < 5; ++i) memory.add(item("lesson " + std::to_string(i)));
  ASSERT_EQ(memory.size(), 3u);
  EXPECT_EQ(memory.items()[0].lesson, "lesson 4");
  EXPECT_EQ(memory.items()[1].lesson, "lesson 3");
  EXPECT_EQ(memory.items()[2].lesson, "lesson 2");
}

TEST(Memory, ZeroCapacityKeepsNothing) {
  Memory memory(0);
  memory.add(item("x"));
  EXPECT_TRUE(memory.empty());
}

TEST(Memory, ShrinkingCapacityDropsOldest) {
  Memory memory(4);
  for (int i = 0; i < 4; ++i) memory.add(item(std::to_string(i)));
  memory.set_capacity(2);
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory.items()[0].lesson, "3");
  EXPECT_EQ(memory.items()[1].lesson, "2");
}

TEST(Memory, JsonRoundTripKeepsOrderAndFields) {
  Memory memory(5);
  memory.add(item("old", 1));
  auto negative = item("new", 2);
  negative.positive = false;
  memory.add(negative);
  Memory back = memory_from_json(to_json(memory), 5);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.items()[0].lesson, "new");
  EXPECT_FALSE(back.items()[0].positive);
  EXPECT_EQ(back.items()[0].round, 2);
  EXPECT_EQ(back.items()[1].lesson, "old");
  EXPECT_EQ(back.items()[1].fast_code, "fast");
  EXPECT_DOUBLE_EQ(back.items()[1].speedup, 1.5);
}

TEST(Memory, LoadingIntoSmallerCapacityKeepsNewest) {
  Memory memory(5);
  for (int i = 0; i < 5; ++i) memory.add(item(std::to_string(i)));
  Memory back = memory_from_json(to_json(memory), 2);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.items()[0].lesson, "4");
  EXPECT_EQ(back.items()[1].lesson, "3");
}

TEST(Memory, RejectsMalformedItems) {
  nlohmann::json no_lesson = {{"key_change", "x"}};
  EXPECT_THROW(experience_from_json(no_lesson), std::invalid_argument);
  nlohmann::json bad_kind = {{"key_change", "x"}, {"lesson", "y"}, {"kind", "sideways"}};
  EXPECT_THROW(experience_from_json(bad_kind), std::invalid_argument);
  nlohmann::json bad_type = {{"key_change", "x"}, {"lesson", 3}};
  EXPECT_THROW(experience_from_json(bad_type), std::invalid_argument);
  EXPECT_THROW(memory_from_json(nlohmann::json::array(), 4), std::invalid_argument);
}

TEST(Memory, FileRoundTripAndErrors) {
  auto dir = std::filesystem::temp_directory_path() / ("accelopt_memory_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "memory.json").string();
  Memory memory(4);
  memory.add(item("saved"));
  save_memory(memory, path);
  EXPECT_EQ(load_memory(path, 4).items().at(0).lesson, "saved");

  std::ofstream(dir / "bad.json") << "{not json";
  try {
    load_memory((dir / "bad.json").string(), 4);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
  }
  EXPECT_THROW(load_memory((dir / "missing.json").string(), 4), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agents
