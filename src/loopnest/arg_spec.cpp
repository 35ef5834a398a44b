#include "loopnest/arg_spec.h"

#include <sstream>

namespace loopnest {

std::vector<ArgSpec> arg_specs_from_header(const std::string& text) {
  std::vector<ArgSpec> out;
  std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "# inputs:";
  if (first.rfind(tag, 0) != 0) return out;
  std::stringstream words(first.substr(tag.size()));
  for (std::string word; words >> word;) {
    ArgSpec a;
    std::stringstream dims(word);
    for (std::string d; std::getline(dims, d, 'x');) a.shape.push_back(std::stoll(d));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace loopnest
