// What the loop splits share (unflatten.cpp: flattened loops; group_split.cpp: a loop whose
// variable is also read as `i // G`): the `//` / `%` terms a loop's indices hold and whether the
// loop may be split at all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// Calls fn(term) for every `//` and `%` term of `e`, nested ones too.
void for_each_quasi_term(const IExpr& e, const std::function<void(const Term&)>& fn);
// How many `//` / `%` terms of the body's expressions involve one of `vars`.
int quasi_terms_using(const Kernel& k, const std::vector<Node>& body, const std::set<int>& vars);
// The loop's trip divisor that a `// d` or `% d` term of variable `v` packs (d / gcd(c, d) for
// `(c * v) // d`); 0 when the term packs none.
int64_t packed_divisor(const Term& t, int v);
// A known trip from 0 by 1 (at least 4), not a host sequence, no tile carried through its
// iterations and no Python list built by them, not frozen; nullopt otherwise.
std::optional<int64_t> splittable_trip(const Kernel& k, const Node& n);

}  // namespace loopnest
