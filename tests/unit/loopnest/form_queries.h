// Test support: questions asked of a lifted form (the moves it offers, a loop by its variable).
#pragma once

#include <set>
#include <string>

#include "loopnest/form.h"
#include "loopnest/transform.h"

namespace loopnest_test {

// The names of the transformations with a site on the form.
inline std::set<std::string> transforms_offered(const loopnest::Kernel& form) {
  std::set<std::string> out;
  for (const auto& s : loopnest::find_sites(form)) out.insert(s.transform);
  return out;
}

// The id of the loop whose variable is `var` (-1: none).
inline int loop_named(const loopnest::Kernel& k, const std::string& var) {
  for (const auto& [id, l] : k.loops)
    if (l.var == var) return id;
  return -1;
}

}  // namespace loopnest_test
