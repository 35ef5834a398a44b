#include "loopnest/host_builtins.h"

#include <set>

namespace loopnest {

bool is_host_builtin(const std::string& name) {
  static const std::set<std::string> names = {
      "range", "min",  "max",      "len",  "int",  "float",    "tuple", "list",  "abs",  "isinstance",
      "print", "bool", "round",    "divmod", "zip", "enumerate", "sorted", "reversed", "slice", "set",
      "frozenset", "sum", "dict",  "repr", "str",  "map",      "filter", "iter",  "next", "getattr"};
  return names.count(name) > 0;
}

}  // namespace loopnest
