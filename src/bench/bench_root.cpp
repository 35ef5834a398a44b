#include "bench/bench_root.h"

#include <cstdlib>
#include <filesystem>

namespace bench {
namespace fs = std::filesystem;

namespace {
bool is_bench_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "summary.json", ec);
}
}  // namespace

std::string default_bench_root() {
  if (const char* env = std::getenv("ACCELOPT_BENCH_ROOT"); env && *env) return env;
  if (is_bench_dir("nkibench")) return "nkibench";
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (is_bench_dir(dir / "nkibench")) return (dir / "nkibench").string();
#ifdef ACCELOPT_SOURCE_BENCH_ROOT
  // The checkout the binary was built from (a binary copied elsewhere, run from any directory).
  if (is_bench_dir(ACCELOPT_SOURCE_BENCH_ROOT)) return ACCELOPT_SOURCE_BENCH_ROOT;
#endif
  return "";
}

}  // namespace bench
