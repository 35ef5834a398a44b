#include <gtest/gtest.h>

#include <stdexcept>

#include "lower/options.h"

TEST(LowerOptions, AllNoneAndListsRoundTrip) {
  EXPECT_EQ(lower::rules_spec(lower::parse_rules("all")), "all");
  EXPECT_EQ(lower::rules_spec(lower::parse_rules("none")), "none");
  lower::Options two = lower::parse_rules("loop_folding,psum_copies");
  EXPECT_TRUE(two.on(lower::Rule::LoopFolding));
  EXPECT_TRUE(two.on(lower::Rule::PsumCopies));
  EXPECT_FALSE(two.on(lower::Rule::HoistLoads));
  EXPECT_EQ(lower::rules_spec(two), "psum_copies,loop_folding");
  EXPECT_EQ(lower::rules_spec(lower::Options{}), "all");
}

TEST(LowerOptions, UnknownRuleIsNamed) {
  try {
    lower::parse_rules("psum_copies,vectorize");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown lowering rule 'vectorize' (all, none, or a list of: psum_copies, psum_accumulation, "
              "hoist_loads, loop_folding, dma_coalescing, transpose_identity)");
  }
}
