#include "fidelity/manifest.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace fidelity {
namespace fs = std::filesystem;

namespace {

struct MetricName {
  Metric metric;
  const char* name;
};
constexpr MetricName kMetrics[] = {
    {Metric::Bench, "bench"},       {Metric::P50, "p50"},
    {Metric::P99, "p99"},           {Metric::ProfileTotal, "profile_total"},
    {Metric::Profile, "profile"},   {Metric::TeActive, "te_active"},
    {Metric::ActActive, "act_active"}, {Metric::DmaActive, "dma_active"},
    {Metric::II, "ii"},             {Metric::None, "none"},
};

// Keys a group may set as defaults for its entries, and the keys only an entry or only a group has.
const std::set<std::string> kSharedKeys = {
    "gen", "gen_note", "role", "description", "kernel", "reference", "entry", "dtype", "params",
    "check_params", "constants", "check", "tolerance", "metric", "per", "unit", "tag", "source", "code", "notes",
    "profiles"};
const std::set<std::string> kGroupKeys = {"name", "ladder", "entries"};
const std::set<std::string> kEntryKeys = {"name", "measured", "flops", "profile_key"};

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)), dir_(fs::path(path_).parent_path()) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    throw ManifestError(fmt::format("{}:{}: error: {}", path_, at.Mark().line + 1, what));
  }

  std::string path_in_manifest(const std::string& relative) const {
    return (dir_.empty() ? fs::path(relative) : dir_ / relative).lexically_normal().string();
  }

  Manifest read() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path_);
    } catch (const YAML::BadFile&) {
      throw ManifestError(fmt::format("{}: error: cannot read the fidelity manifest", path_));
    } catch (const YAML::Exception& e) {
      throw ManifestError(fmt::format("{}:{}: error: {}", path_, e.mark.line + 1, e.msg));
    }
    if (!root.IsMap() || !root["format"] || root["format"].as<std::string>() != "accelopt-fidelity/1")
      fail(root, "not a fidelity manifest (expected 'format: accelopt-fidelity/1')");
    const YAML::Node groups = root["groups"];
    if (!groups) fail(root, "the manifest has no 'groups'");
    if (!groups.IsSequence()) fail(groups, "'groups' must be a list");
    Manifest m;
    m.path = path_;
    std::set<std::string> ids;
    for (const auto& group : groups) read_group(group, m, ids);
    return m;
  }

 private:
  void check_keys(const YAML::Node& node, const std::set<std::string>& own) const {
    for (const auto& kv : node) {
      std::string key = kv.first.as<std::string>();
      if (!own.count(key) && !kSharedKeys.count(key)) fail(kv.first, fmt::format("unknown key '{}'", key));
    }
  }

  // A scalar as a Python literal for the reference: integers and floats as written, anything else
  // as a quoted string.
  std::string python_literal(const YAML::Node& v) const {
    if (!v.IsScalar()) fail(v, "parameter values must be scalars");
    std::string s = v.Scalar();
    static const std::regex number(R"([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)");
    if (std::regex_match(s, number)) return s;
    std::string quoted = "'";
    for (char c : s) {
      if (c == '\\' || c == '\'') quoted += '\\';
      quoted += c;
    }
    return quoted + "'";
  }

  void merge_params(const YAML::Node& node, std::map<std::string, std::string>& into) const {
    if (!node.IsMap()) fail(node, "parameters must be a mapping NAME: value");
    static const std::regex identifier(R"([A-Za-z_][A-Za-z_0-9]*)");
    for (const auto& kv : node) {
      std::string key = kv.first.as<std::string>();
      if (!std::regex_match(key, identifier)) fail(kv.first, fmt::format("'{}' is not a Python identifier", key));
      into[key] = python_literal(kv.second);
    }
  }

  template <class T>
  T scalar(const YAML::Node& v, const char* what) const {
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      fail(v, fmt::format("'{}' has the wrong type", what));
    }
  }

  // Applies the shared keys present in `node` (a group's defaults, then the entry's own).
  void apply(const YAML::Node& node, Entry& e, std::map<std::string, std::string>& check_overrides,
             std::string& profiles) const {
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      const YAML::Node& v = kv.second;
      if (key == "gen") {
        e.gen = scalar<std::string>(v, "gen");
        if (e.gen != "trn1" && e.gen != "trn2") fail(v, "gen must be trn1 or trn2");
      } else if (key == "gen_note") e.gen_note = scalar<std::string>(v, "gen_note");
      else if (key == "role") {
        std::string r = scalar<std::string>(v, "role");
        if (r == "calibrate") e.role = Role::Calibrate;
        else if (r == "validate") e.role = Role::Validate;
        else fail(v, "role must be calibrate or validate");
      } else if (key == "description") e.description = scalar<std::string>(v, "description");
      else if (key == "kernel") e.kernel_path = path_in_manifest(scalar<std::string>(v, "kernel"));
      else if (key == "reference") e.reference_path = path_in_manifest(scalar<std::string>(v, "reference"));
      else if (key == "entry") e.entry.function = scalar<std::string>(v, "entry");
      else if (key == "dtype") e.dtype = scalar<std::string>(v, "dtype");
      else if (key == "params") merge_params(v, e.params);
      else if (key == "check_params") merge_params(v, check_overrides);
      else if (key == "constants") merge_params(v, e.constants);
      else if (key == "check") {
        std::string c = scalar<std::string>(v, "check");
        if (c == "run") e.check = CheckMode::Run;
        else if (c == "slow") e.check = CheckMode::Slow;
        else fail(v, "check must be run or slow");
      } else if (key == "tolerance") e.tolerance = scalar<double>(v, "tolerance");
      else if (key == "metric") {
        try {
          e.metric = parse_metric(scalar<std::string>(v, "metric"));
        } catch (const std::invalid_argument& err) {
          fail(v, err.what());
        }
      } else if (key == "per") {
        e.per = scalar<int>(v, "per");
        if (e.per < 1) fail(v, "per must be at least 1");
      } else if (key == "unit") e.unit = scalar<std::string>(v, "unit");
      else if (key == "tag") e.tag = scalar<std::string>(v, "tag");
      else if (key == "source") e.source = scalar<std::string>(v, "source");
      else if (key == "code") e.code = scalar<std::string>(v, "code");
      else if (key == "notes") e.notes = scalar<std::string>(v, "notes");
      else if (key == "profiles") profiles = path_in_manifest(scalar<std::string>(v, "profiles"));
    }
  }

  // The summary fields of a real profile in `profiles` (a trn1-baseline-profiles.json file).
  std::map<std::string, double> recorded_profile(const std::string& profiles, const std::string& key,
                                                 const YAML::Node& at) const {
    std::ifstream in(profiles);
    if (!in) fail(at, fmt::format("cannot read the profiles file {}", profiles));
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      fail(at, fmt::format("{}: {}", profiles, e.what()));
    }
    const auto* p = j.contains("kernels") && j["kernels"].contains(key) ? &j["kernels"][key] : nullptr;
    if (!p || !p->contains("profile") || !(*p)["profile"].contains("latency") ||
        !(*p)["profile"]["latency"].is_number())
      fail(at, fmt::format("{} has no kernels.{}.profile.latency", profiles, key));
    std::map<std::string, double> fields;
    for (const auto& [name, value] : (*p)["profile"].items())
      if (value.is_number()) fields[name] = value.get<double>();
    return fields;
  }

  void read_group(const YAML::Node& group, Manifest& m, std::set<std::string>& ids) const {
    if (!group.IsMap() || !group["name"]) fail(group, "a group needs a name");
    check_keys(group, kGroupKeys);
    const std::string name = scalar<std::string>(group["name"], "name");
    const bool ladder = group["ladder"] && scalar<bool>(group["ladder"], "ladder");
    const YAML::Node entries = group["entries"];
    if (!entries || !entries.IsSequence() || entries.size() == 0) fail(group, "a group needs a list of entries");
    for (const auto& node : entries) {
      if (!node.IsMap() || !node["name"]) fail(node, "an entry needs a name");
      check_keys(node, kEntryKeys);
      Entry e;
      e.group = name;
      e.ladder = ladder;
      e.name = scalar<std::string>(node["name"], "name");
      std::map<std::string, std::string> check_overrides;
      std::string profiles;
      apply(group, e, check_overrides, profiles);
      apply(node, e, check_overrides, profiles);
      e.check_params = e.params;
      for (const auto& [k, v] : check_overrides) e.check_params[k] = v;
      if (!ids.insert(e.id()).second) fail(node, fmt::format("duplicate entry '{}'", e.id()));
      if (e.gen.empty()) fail(node, fmt::format("entry '{}' has no gen", e.id()));
      if (e.kernel_path.empty() || e.reference_path.empty())
        fail(node, fmt::format("entry '{}' needs a kernel and a reference", e.id()));
      if (node["measured"]) {
        e.measured = scalar<double>(node["measured"], "measured");
      } else if (!profiles.empty()) {
        std::string key = node["profile_key"] ? scalar<std::string>(node["profile_key"], "profile_key") : e.name;
        e.recorded_profile = recorded_profile(profiles, key, node);
        e.measured = e.recorded_profile.at("latency");
        e.unit = "ms";
      } else {
        fail(node, fmt::format("entry '{}' has no measured number", e.id()));
      }
      if (e.unit != "ns" && e.unit != "us" && e.unit != "ms" && e.unit != "tflops")
        fail(node, fmt::format("entry '{}': unit must be ns, us, ms or tflops", e.id()));
      if (node["flops"]) e.flops = scalar<double>(node["flops"], "flops");
      if (e.unit == "tflops" && e.flops <= 0) fail(node, fmt::format("entry '{}': a tflops number needs flops", e.id()));
      if (e.measured <= 0) fail(node, fmt::format("entry '{}': the measured number must be positive", e.id()));
      m.entries.push_back(std::move(e));
    }
  }

  std::string path_;
  fs::path dir_;
};

}  // namespace

Metric parse_metric(const std::string& text) {
  for (const auto& m : kMetrics)
    if (text == m.name) return m.metric;
  throw std::invalid_argument(fmt::format(
      "unknown metric '{}' (expected bench, p50, p99, profile_total, profile, te_active, act_active, dma_active, "
      "ii or none)", text));
}

std::string to_string(Metric metric) {
  for (const auto& m : kMetrics)
    if (m.metric == metric) return m.name;
  return "?";
}

bool includes_launch_cost(Metric m) { return is_latency(m); }

bool is_latency(Metric m) {
  return m == Metric::Bench || m == Metric::P50 || m == Metric::P99 || m == Metric::ProfileTotal || m == Metric::Profile;
}

std::string to_string(Role r) { return r == Role::Calibrate ? "calibrate" : "validate"; }

double Entry::measured_us() const {
  if (unit == "ns") return measured * 1e-3;
  if (unit == "ms") return measured * 1e3;
  if (unit == "tflops") return flops / (measured * 1e12) * 1e6;
  return measured;
}

Manifest load_manifest(const std::string& path) { return Reader(path).read(); }

std::string default_manifest_path() {
  if (const char* env = std::getenv("ACCELOPT_FIDELITY_MANIFEST"); env && *env) return env;
  std::error_code ec;
  if (fs::is_regular_file("fidelity/manifest.yaml", ec)) return "fidelity/manifest.yaml";
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (fs::is_regular_file(dir / "fidelity" / "manifest.yaml", ec)) return (dir / "fidelity" / "manifest.yaml").string();
  return "";
}

}  // namespace fidelity
