// JSON form of an Evaluation (the result files of the run directory, the store, `accelopt eval`).
#include "eval/evaluation.h"

#include <array>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "eval/json_field.h"

namespace eval {
namespace {

constexpr std::array<std::pair<Status, const char*>, 9> kStatusNames = {{
    {Status::Ok, "ok"},
    {Status::Incorrect, "incorrect"},
    {Status::CompileError, "compile_error"},
    {Status::RuntimeError, "runtime_error"},
    {Status::Timeout, "timeout"},
    {Status::ResourceError, "resource_error"},
    {Status::LowerPrecision, "lower_precision"},
    {Status::InternalError, "internal_error"},
    {Status::Unfinished, "unfinished"},
}};

nlohmann::json seed_to_json(const SeedResult& s) {
  return {{"seed", s.seed},
          {"correct", s.correct},
          {"rel_l2", s.rel_l2},
          {"max_abs_diff", s.max_abs_diff},
          {"mean_abs_diff", s.mean_abs_diff},
          {"max_rel_diff", s.max_rel_diff}};
}

template <typename T>
void read_field(const nlohmann::json& j, const char* name, T& out) {
  read_json_field(j, name, out, "evaluation JSON");
}

SeedResult seed_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("evaluation JSON: each of 'seeds' must be an object");
  SeedResult s;
  read_field(j, "seed", s.seed);
  read_field(j, "correct", s.correct);
  read_field(j, "rel_l2", s.rel_l2);
  read_field(j, "max_abs_diff", s.max_abs_diff);
  read_field(j, "mean_abs_diff", s.mean_abs_diff);
  read_field(j, "max_rel_diff", s.max_rel_diff);
  return s;
}

}  // namespace

const char* to_string(Status s) {
  for (const auto& [status, name] : kStatusNames)
    if (status == s) return name;
  return "internal_error";
}

std::optional<Status> parse_status(const std::string& s) {
  for (const auto& [status, name] : kStatusNames)
    if (s == name) return status;
  return std::nullopt;
}

nlohmann::json to_json(const Evaluation& e) {
  nlohmann::json j = {{"status", to_string(e.status)}, {"correct", e.correct}};
  j["seeds"] = nlohmann::json::array();
  for (const auto& s : e.seeds) j["seeds"].push_back(seed_to_json(s));
  if (e.failure) j["failure"] = to_json(*e.failure);
  j["diagnostics"] = e.diagnostics;
  j["latency_ms"] = e.latency_ms();
  j["profile"] = e.profile ? trn::to_json(*e.profile) : nlohmann::json(nullptr);
  return j;
}

Evaluation failed_evaluation(const Failed& f) {
  Evaluation e;
  e.status = classify(f.failure);
  e.failure = f.failure;
  e.diagnostics.push_back(f.rendered);
  return e;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string to_json_text(const Evaluation& e, int indent) { return json_text(to_json(e), indent); }

Evaluation evaluation_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("evaluation JSON: expected an object");
  Evaluation e;
  std::string status;
  read_field(j, "status", status);
  auto parsed = parse_status(status);
  if (!parsed) throw std::runtime_error("evaluation JSON: unknown status '" + status + "'");
  e.status = *parsed;
  read_field(j, "correct", e.correct);
  if (auto it = j.find("seeds"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) throw std::runtime_error("evaluation JSON: 'seeds' must be an array");
    for (const auto& s : *it) e.seeds.push_back(seed_from_json(s));
  }
  if (auto it = j.find("failure"); it != j.end() && !it->is_null()) e.failure = failure_from_json(*it);
  read_field(j, "diagnostics", e.diagnostics);
  if (auto it = j.find("profile"); it != j.end() && !it->is_null()) e.profile = trn::profile_from_json(*it);
  return e;
}

}  // namespace eval
