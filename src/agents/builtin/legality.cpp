#include "agents/builtin/legality.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace agents::builtin {

namespace {

void add_numbers_from_file_name(const std::string& name, std::set<int64_t>& dims) {
  static const std::regex field("_[A-Za-z]+([0-9]+)");
  for (auto it = std::sregex_iterator(name.begin(), name.end(), field); it != std::sregex_iterator(); ++it)
    dims.insert(std::stoll((*it)[1].str()));
}

void add_reference_constants(const std::string& text, std::set<int64_t>& dims) {
  static const std::regex constant(R"(^[A-Za-z_][A-Za-z0-9_]*\s*=\s*([0-9]+)\s*(#.*)?$)");
  std::stringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, constant) && m[1].str().size() < 12) dims.insert(std::stoll(m[1].str()));
}

bool has_remainder_mask(const std::string& kernel_text) {
  return kernel_text.find("mask=") != std::string::npos;
}

// A smaller `var` must still hold whole inner tiles: with `block // 1024` in the kernel, `block =
// 512` leaves that loop with no iteration and the output unwritten.
bool inner_tiles_still_fit(const std::string& var, int64_t to, const std::string& kernel_text) {
  std::regex inner("\\b" + var + R"(\s*//\s*([0-9]+))");
  for (auto it = std::sregex_iterator(kernel_text.begin(), kernel_text.end(), inner); it != std::sregex_iterator();
       ++it) {
    int64_t tile = std::stoll((*it)[1].str());
    if (tile > 0 && to % tile != 0) return false;
  }
  return true;
}

}  // namespace

std::set<int64_t> task_dimensions(const TaskInfo& task) {
  std::set<int64_t> dims;
  add_numbers_from_file_name(task.kernel_file_name, dims);
  add_reference_constants(task.reference_text, dims);
  dims.erase(0);
  return dims;
}

bool plausible(const Site& site, const std::set<int64_t>& dims, const std::string& kernel_text) {
  if (site.transform == "chunk_free_axis" && site.params.count("value")) {
    // The chunk must tile the row width: some task dimension above it is a multiple of it.
    int64_t chunk = std::stoll(site.params.at("value"));
    return dims.empty() ||
           std::any_of(dims.begin(), dims.end(), [&](int64_t d) { return d > chunk && d % chunk == 0; });
  }
  if (site.transform != "free_size" || !site.params.count("from") || !site.params.count("value")) return true;
  int64_t from = std::stoll(site.params.at("from")), to = std::stoll(site.params.at("value"));
  if (to < from && site.params.count("var")) return inner_tiles_still_fit(site.params.at("var"), to, kernel_text);
  if (to <= from || from <= 0 || has_remainder_mask(kernel_text)) return true;  // shrinking keeps divisibility
  // The dimensions the current size tiles exactly are the ones it may be covering.
  for (int64_t d : dims)
    if (d >= from && d % from == 0 && d % to != 0) return false;
  return true;
}

}  // namespace agents::builtin
