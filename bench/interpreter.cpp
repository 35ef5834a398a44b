// Interpreter speed: steps per second on loop-heavy Python, user-function calls per second,
// builtin (library) calls per second through a module attribute, the shape of every nl.* call, and
// dict / set fills with lookups at two sizes (twice the keys should take about twice the time:
// lookups are hashed, not scans).
// Prints medians of several repetitions (the machine is shared and noisy).
//
//   build-lang/bench/bench_interpreter [repetitions]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include <fmt/core.h>

#include "nki/interpreter.h"

namespace {

// n keys (ints and strings) inserted, then each looked up; the same for a set.
constexpr const char* kDictFill =
    "def work(n):\n    d = {}\n    for i in range(n):\n        d[i * 7] = i\n        d['k' + str(i)] = i\n"
    "    s = 0\n    for i in range(n):\n        s += d[i * 7] + d.get('k' + str(i), 0)\n    return s\n";
constexpr const char* kSetFill =
    "def work(n):\n    s = set()\n    for i in range(n):\n        s.add((i, i % 3))\n    c = 0\n"
    "    for i in range(n):\n        if (i, i % 3) in s:\n            c += 1\n    return c\n";

struct Case {
  const char* name;
  const char* code;  // defines work(n)
  int64_t n;
  const char* unit;  // what one iteration counts as
};

const Case kCases[] = {
    {"for-loop arithmetic", "def work(n):\n    s = 0\n    for i in range(n):\n        s = s + i * 2 - i // 3\n    return s\n",
     3'000'000, "iterations"},
    {"while-loop with list", "def work(n):\n    out = []\n    i = 0\n    while i < n:\n        out.append(i % 7)\n        i += 1\n"
     "    return len(out)\n", 1'000'000, "iterations"},
    {"user function calls", "def f(a, b=1):\n    return a + b\n\ndef work(n):\n    s = 0\n    for i in range(n):\n"
     "        s = f(s, b=i)\n    return s\n", 1'000'000, "calls"},
    {"library calls (nl.op(x, k=..))", "import nki.language as nl\n\ndef work(n):\n    t = 0\n    for i in range(n):\n"
     "        t = nl.op(t, i, dtype=None)\n    return t\n", 1'000'000, "calls"},
    {"dict fill + lookup, 20k keys", kDictFill, 20'000, "keys"},
    {"dict fill + lookup, 40k keys", kDictFill, 40'000, "keys"},
    {"set add + membership, 20k", kSetFill, 20'000, "elements"},
    {"set add + membership, 40k", kSetFill, 40'000, "elements"},
};

// A stand-in library module with one cheap builtin, so the figure is the interpreter's overhead.
nki::ObjectPtr fake_library(nki::Interpreter&) {
  auto m = std::make_shared<nki::ModuleObj>("nl");
  m->attrs["op"] = nki::Value(std::make_shared<nki::BuiltinObj>("nl.op", [](nki::Interpreter&, nki::CallArgs& a) {
    return a.args[0];
  }));
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  fmt::print("{:<32} {:>14} {:>16} {:>14}\n", "case", "Msteps/s", "M units/s", "ms (median)");
  for (const Case& c : kCases) {
    std::vector<double> seconds;
    uint64_t steps = 0;
    for (int r = 0; r < reps; ++r) {
      nki::Limits limits;
      limits.max_steps = 4'000'000'000ull;
      nki::Interpreter in(limits);
      in.register_module("nki.language", fake_library);
      auto m = in.load_module(std::make_shared<nki::SourceFile>(nki::SourceFile{"bench.py", c.code}));
      nki::CallArgs args;
      args.args.push_back(nki::Value::from_int(c.n));
      uint64_t before = in.steps();
      auto t0 = std::chrono::steady_clock::now();
      in.call(m->get_attr(in, "work"), args);
      auto t1 = std::chrono::steady_clock::now();
      seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
      steps = in.steps() - before;
    }
    double s = median(seconds);
    fmt::print("{:<32} {:>14.1f} {:>16.2f} {:>14.1f}   ({} steps, {} {})\n", c.name, steps / s / 1e6, c.n / s / 1e6,
               s * 1e3, steps, c.n, c.unit);
  }
  return 0;
}
