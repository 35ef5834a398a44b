// Where the bundled benchmark lives when the user gives no --bench-root.
#pragma once

#include <string>

namespace bench {

// The first of: $ACCELOPT_BENCH_ROOT; ./nkibench; a `nkibench/summary.json` found walking up from
// the directory of the running executable (a build tree inside the checkout). "" if none.
std::string default_bench_root();

}  // namespace bench
