// Helpers for the end-to-end tests of `accelopt eval | trace | profile | bench | tasks`: a temp
// directory, running the binary, and small benchmark directories built from the bundled tasks.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include "support/test_paths.h"

namespace bench_e2e {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "accelopt-bench-e2e-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliRun {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

// Runs `accelopt <args>` in `dir`; the reference cache goes to dir/cache unless args say otherwise.
inline CliRun accelopt(const std::string& dir, const std::string& args) {
  CliRun r;
  std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  std::string cmd = "cd " + quote(ACCELOPT_SOURCE_DIR) + " && ACCELOPT_CACHE_DIR=" + quote(dir + "/cache") + " " +
                    quote(ACCELOPT_BINARY) + " " + args + " >" + quote(out) + " 2>" + quote(err);
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline std::string source(const std::string& rel) { return std::string(ACCELOPT_SOURCE_DIR) + "/" + rel; }

// Writes a benchmark directory with one bundled task shrunk to small constants, e.g.
// small_task(dir, "silu", "M4096_N7168", {{"M", 256}, {"N", 2048}}, "M256_N2048").
inline void add_small_task(const std::string& root, const std::string& task, const std::string& bundled_config,
                           const std::map<std::string, int>& values, const std::string& config,
                           nlohmann::json& summary) {
  std::string ref = slurp(source("nkibench/reference/" + task + "_" + bundled_config + ".py"));
  for (const auto& [name, value] : values)
    ref = std::regex_replace(ref, std::regex("(^|\\n)" + name + " = \\d+"), "$1" + name + " = " + std::to_string(value));
  spit(root + "/reference/" + task + "_" + config + ".py", ref);
  fs::create_directories(root + "/kernels");
  fs::copy_file(source("nkibench/kernels/" + task + "_" + bundled_config + "_0.py"),
                root + "/kernels/" + task + "_" + config + "_0.py", fs::copy_options::overwrite_existing);
  nlohmann::json vals = nlohmann::json::object();
  for (const auto& [name, value] : values) vals[name] = value;
  summary[task] = {{"cases",
                    {{config,
                      {{"values", vals},
                       {"impls", {{{"task", "./reference/" + task + "_" + config + ".py"},
                                   {"kernel", "./kernels/" + task + "_" + config + "_0.py"}}}}}}}}};
}

inline void write_summary(const std::string& root, const nlohmann::json& summary) {
  spit(root + "/summary.json", summary.dump(2));
}

}  // namespace bench_e2e
