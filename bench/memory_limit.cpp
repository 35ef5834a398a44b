// How well the interpreter's memory limit (nki::Limits::max_bytes) holds against programs that
// fill memory with Python containers (issue 14: `x=[[0]*10**6 for i in range(10**4)]` reached
// 10.3 GB under a 4 GiB limit before containers were counted). Each program runs in a forked
// child under a 256 MiB limit; the figure is the child's peak resident memory above what it held
// before the program started, divided by the limit. Counted exactly, a program stops at ~1.0;
// the per-object overhead the accounting does not see (allocator headers, reference counts,
// hash buckets, a vector's spare capacity) shows as the excess.
//
//   bench_memory_limit       prints per program: how it ended (limit kind or "finished"),
//                            peak RSS growth in MiB, and growth / limit
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "nki/interpreter.h"

namespace {

constexpr uint64_t kLimit = 256ull << 20;

// A field of /proc/self/status in bytes: VmHWM (peak resident set) or VmRSS (resident now).
uint64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  return 0;
}

// Runs `code` in a child; the child writes "<ending> <peak growth bytes>" to the pipe.
std::string measure(const std::string& code) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string ending = "finished";
    uint64_t before = 0;
    {
      nki::Limits limits;
      limits.max_bytes = kLimit;
      limits.max_steps = 2'000'000'000;
      limits.max_seconds = 60;
      nki::Interpreter in(limits);
      before = status_bytes("VmRSS");
      try {
        in.load_module(std::make_shared<nki::SourceFile>(nki::SourceFile{"fill.py", code}));
      } catch (const nki::NkiError& e) {
        ending = e.diag.limit == nki::LimitKind::Memory   ? "memory limit"
                 : e.diag.limit == nki::LimitKind::Steps  ? "step limit"
                 : e.diag.limit == nki::LimitKind::Time   ? "time limit"
                                                          : "error";
      }
    }
    std::string out = fmt::format("{} {}", ending, status_bytes("VmHWM") - before);
    ssize_t written = ::write(fds[1], out.data(), out.size());
    ::_exit(written == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  char buf[256] = {};
  ssize_t n = ::read(fds[0], buf, sizeof(buf) - 1);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (n <= 0) return "child died";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

int main() {
  struct Program {
    const char* name;
    const char* code;
  } programs[] = {
      {"lists of 10**6 ints", "x = [[0] * 10**6 for i in range(10**4)]\n"},
      {"appended lists", "x = []\nfor i in range(10**4):\n    x.append([0] * 10**6)\n"},
      {"one-item lists", "x = [[i] for i in range(10**8)]\n"},
      {"empty lists", "x = [[] for i in range(10**8)]\n"},
      {"strings of 20 MB", "x = []\nfor i in range(10**4):\n    x.append('ab' * 10**7 + str(i))\n"},
      {"short strings", "x = [str(i) for i in range(10**8)]\n"},
      // Dicts and sets look keys up by a linear scan (nki/value.h), so one big dict would hit
      // the time limit long before the memory limit: many dicts of 1,000 keys instead.
      {"dicts of 1000 ints", "x = [{i: i for i in range(1000)} for j in range(10**6)]\n"},
      {"sets of 1000 ints", "x = [set(range(1000)) for j in range(10**6)]\n"},
      {"small dicts", "x = [{'a': i} for i in range(10**8)]\n"},
      {"tuples", "x = [tuple(range(100)) for i in range(10**7)]\n"},
  };
  fmt::print("limit {} MiB; peak RSS growth / limit (1.0 = counted exactly)\n", kLimit >> 20);
  for (const auto& p : programs) {
    std::string result = measure(p.code);
    auto space = result.rfind(' ');
    if (space == std::string::npos) {
      fmt::print("{:<22} {}\n", p.name, result);
      continue;
    }
    double growth = std::stod(result.substr(space + 1));
    fmt::print("{:<22} {:<14} {:8.1f} MiB  {:5.2f}x\n", p.name, result.substr(0, space), growth / (1 << 20),
               growth / double(kLimit));
  }
  return 0;
}
