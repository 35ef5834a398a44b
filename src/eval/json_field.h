// Optional fields of the JSON documents the evaluation service reads (job files, results).
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace eval {

// Reads field `name` of `j` into `out` when it is present and not null (else `out` keeps its
// default); a present field of the wrong type is an error naming the document (`what`, e.g.
// "job JSON") and the field.
template <typename T>
void read_json_field(const nlohmann::json& j, const char* name, T& out, const char* what) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return;
  try {
    out = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(std::string(what) + ": field '" + name + "' has type " + it->type_name());
  }
}

}  // namespace eval
