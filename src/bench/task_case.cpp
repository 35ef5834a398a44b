#include "bench/task_case.h"

#include <charconv>
#include <stdexcept>

namespace bench {

double default_tolerance(const std::string& task) { return task == "mamba" ? 3e-5 : kDefaultTolerance; }

double TaskCase::effective_tolerance() const { return tolerance ? *tolerance : default_tolerance(task); }

}  // namespace bench

namespace bench {

std::vector<int> parse_seeds(const std::string& text) {
  std::vector<int> seeds;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    int value = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 0)
      throw std::invalid_argument("bad seed '" + item + "' (expected non-negative integers separated by commas)");
    seeds.push_back(value);
    pos = comma + 1;
  }
  return seeds;
}

}  // namespace bench
