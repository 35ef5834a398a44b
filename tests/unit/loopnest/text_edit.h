// Test support: edits of a test kernel's text that fail the test when the text is not there.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace loopnest_test {

// The first `from` in `text` replaced by `to`; a missing `from` fails the test.
inline void replace(std::string& text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

// Every `from` in `text` replaced by `to`.
inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace loopnest_test
