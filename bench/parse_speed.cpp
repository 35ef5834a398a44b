// Parse time of large sources: lex + parse + resolve (nki::Interpreter::compile) of generated
// files of 1, 2, 4, 8 and 16 MB in three shapes (many short statements with comments, one long
// expression-heavy function, a long docstring-like string). Linear parsing means the time per MB
// stays flat as the size doubles; the evaluation caps sources at Limits::max_source_bytes (1 MiB),
// so this benchmark lifts the cap.
//
// Times are the compiling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time: on a
// machine shared by several builds the wall time mostly measures waiting for a core.
//
//   bench_parse_speed        prints one line per (shape, size): the median of 3 runs in seconds,
//                            seconds per MB, and per shape the ratios of 8 MB to 1 MB time
//                            (linear: 8; the quadratic parser of issue 14 took 18.6 s at 8 MB)
//                            and of 16 MB to 8 MB time (linear: 2). 1 MB of source is tens of
//                            MB of tokens and tree, so the time per MB grows while the working
//                            set outgrows the caches (1 to 8 MB); past that it is flat if
//                            parsing is linear, which the 16/8 ratio shows.
#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "nki/interpreter.h"

namespace {

std::string statements(size_t bytes) {
  std::string text = "import numpy as np\n";
  for (size_t i = 0; text.size() < bytes; ++i)
    text += fmt::format("# step {}\nx{} = (a[{}] + b * {}) // 3  # trailing comment\n", i, i % 1000, i % 7, i);
  return text;
}

std::string one_function(size_t bytes) {
  std::string text = "def kernel(a, b):\n    total = 0\n";
  for (size_t i = 0; text.size() < bytes; ++i)
    text += fmt::format("    if total > {}:\n        total = total + a[{}] * b\n", i, i % 13);
  return text + "    return total\n";
}

std::string long_string(size_t bytes) {
  std::string text = "doc = \"\"\"\n";
  while (text.size() < bytes) text += "a line of documentation text, seventy characters long, more or less.\n";
  return text + "\"\"\"\n";
}

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double compile_seconds(const std::string& text) {
  nki::Limits limits;
  limits.max_source_bytes = uint64_t(1) << 30;
  limits.max_seconds = 3600;
  nki::Interpreter in(limits);
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{"big.py", text});
  double start = thread_cpu_seconds();
  in.compile(src);
  return thread_cpu_seconds() - start;
}

}  // namespace

int main() {
  struct Shape {
    const char* name;
    std::string (*make)(size_t);
  } shapes[] = {{"statements", statements}, {"one_function", one_function}, {"long_string", long_string}};
  for (const auto& shape : shapes) {
    double one_mb = 0, eight_mb = 0;
    for (size_t mb : {1, 2, 4, 8, 16}) {
      std::string text = shape.make(mb << 20);
      std::vector<double> runs;
      for (int i = 0; i < 3; ++i) runs.push_back(compile_seconds(text));
      std::sort(runs.begin(), runs.end());
      double s = runs[1];
      if (mb == 1) one_mb = s;
      if (mb == 8) eight_mb = s;
      fmt::print("{:<13} {} MB  {:8.3f} s  {:7.3f} s/MB\n", shape.name, mb, s, s / double(mb));
      if (mb == 8) fmt::print("{:<13} 8 MB / 1 MB time: {:.2f} (linear: 8)\n", shape.name, s / one_mb);
      if (mb == 16) fmt::print("{:<13} 16 MB / 8 MB time: {:.2f} (linear: 2)\n", shape.name, s / eight_mb);
    }
  }
  return 0;
}
