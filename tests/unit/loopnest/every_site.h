// Test support: every site the loop-nest form offers on a kernel, applied alone, prints back and
// keeps the kernel's result (within 1e-5 of the kernel as written).
#pragma once

#include <exception>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"

namespace loopnest_test {

// Returns how many sites there were (a test asserting a kernel offers some checks it).
inline size_t expect_every_site_keeps_result(const std::string& path, const std::string& text,
                                             const std::vector<loopnest::ArgSpec>& args) {
  auto want = run(path, text, args);
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
  for (const auto& site : sites) {
    try {
      std::string after = loopnest::apply_site(path, text, args, site);
      EXPECT_LT(rel_error(run(path, after, args), want), 1e-5) << site.key() << "\n" << after;
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << " " << site.key() << ": " << e.what();
    }
  }
  return sites.size();
}

}  // namespace loopnest_test
