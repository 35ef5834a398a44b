#include "eval/job.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/content_hash.h"
#include "eval/json_field.h"
#include "eval/source_hash.h"

namespace eval {
namespace {

constexpr const char* kJobFormat = "accelopt-eval-job/1";

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot read ") + what + " file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename T>
void read_field(const nlohmann::json& j, const char* name, T& out) {
  read_json_field(j, name, out, "job JSON");
}

nlohmann::json limits_to_json(const Limits& l) {
  return {{"max_steps", l.max_steps},
          {"max_bytes", l.max_bytes},
          {"max_seconds", l.max_seconds},
          {"max_cpu_seconds", l.max_cpu_seconds},
          {"max_depth", l.max_depth},
          {"max_source_bytes", l.max_source_bytes}};
}

}  // namespace

std::string job_key(const JobSpec& job) {
  const EvalRequest& r = job.request;
  nlohmann::json identity = {
      {"kernel", normalize_source(r.kernel_text)},
      {"reference", base::content_hash(r.reference_text)},
      {"arch", r.arch},
      {"seeds", r.seeds},
      {"tolerance", r.tolerance},
      {"profile", r.profile},
      {"limits", limits_to_json(r.limits)},
      {"profiler", {job.profiler.kind, job.profiler.command}},
      {"test_hook", job.test_hook_json},
  };
  if (!job.key_tag.empty()) identity["key_tag"] = job.key_tag;
  return base::content_hash(json_text(identity));
}

nlohmann::json to_json(const JobSpec& job) {
  const EvalRequest& r = job.request;
  nlohmann::json j = {
      {"format", kJobFormat},
      {"key", job.key},
      {"kernel_path", r.kernel_path},
      {"kernel_text", r.kernel_text},
      {"reference_path", r.reference_path},
      {"reference_text", r.reference_text},
      {"arch", r.arch},
      {"seeds", r.seeds},
      {"tolerance", r.tolerance},
      {"profile", r.profile},
      {"cache_dir", r.cache_dir},
      {"limits", limits_to_json(r.limits)},
      {"profiler", {{"kind", job.profiler.kind}, {"command", job.profiler.command}}},
  };
  if (!job.test_hook_json.empty()) j["test_hook"] = nlohmann::json::parse(job.test_hook_json);
  if (!job.key_tag.empty()) j["key_tag"] = job.key_tag;
  return j;
}

JobSpec job_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("job JSON: expected an object");
  std::string format;
  read_field(j, "format", format);
  if (format != kJobFormat)
    throw std::runtime_error("job JSON: format '" + format + "' is not " + kJobFormat);
  JobSpec job;
  EvalRequest& r = job.request;
  read_field(j, "key", job.key);
  read_field(j, "kernel_path", r.kernel_path);
  read_field(j, "kernel_text", r.kernel_text);
  read_field(j, "reference_path", r.reference_path);
  read_field(j, "reference_text", r.reference_text);
  read_field(j, "arch", r.arch);
  read_field(j, "seeds", r.seeds);
  read_field(j, "tolerance", r.tolerance);
  read_field(j, "profile", r.profile);
  read_field(j, "cache_dir", r.cache_dir);
  if (auto it = j.find("limits"); it != j.end() && it->is_object()) {
    read_field(*it, "max_steps", r.limits.max_steps);
    read_field(*it, "max_bytes", r.limits.max_bytes);
    read_field(*it, "max_seconds", r.limits.max_seconds);
    read_field(*it, "max_cpu_seconds", r.limits.max_cpu_seconds);
    read_field(*it, "max_depth", r.limits.max_depth);
    read_field(*it, "max_source_bytes", r.limits.max_source_bytes);
  }
  if (auto it = j.find("profiler"); it != j.end() && it->is_object()) {
    read_field(*it, "kind", job.profiler.kind);
    read_field(*it, "command", job.profiler.command);
  }
  if (auto it = j.find("test_hook"); it != j.end() && !it->is_null()) job.test_hook_json = it->dump();
  if (auto it = j.find("key_tag"); it != j.end() && it->is_string()) job.key_tag = it->get<std::string>();
  if (job.key.empty()) throw std::runtime_error("job JSON: missing 'key'");
  return job;
}

void load_texts(EvalRequest& request) {
  if (request.kernel_text.empty() && !request.kernel_path.empty())
    request.kernel_text = read_file(request.kernel_path, "kernel");
  if (request.reference_text.empty() && !request.reference_path.empty())
    request.reference_text = read_file(request.reference_path, "reference");
}

}  // namespace eval
