#include "eval/profiler.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/content_hash.h"
#include "eval/process.h"
#include "eval/run_dir.h"

namespace eval {
namespace {

class SimProfiler final : public Profiler {
 public:
  bool simulated() const override { return true; }
  void profile(const EvalRequest&, Evaluation&) override {}  // evaluate() ran the simulator
};

std::string tail(const std::string& text, size_t max_bytes) {
  return text.size() <= max_bytes ? text : "..." + text.substr(text.size() - max_bytes);
}

// neuron-profile's JSON puts the summary at the top level, or as {"summary": [ {...} ]}.
const nlohmann::json& summary_object(const nlohmann::json& j) {
  if (auto it = j.find("summary"); it != j.end()) {
    if (it->is_array() && !it->empty() && (*it)[0].is_object()) return (*it)[0];
    if (it->is_object()) return *it;
  }
  if (!j.is_object()) throw ProfilerError("profiler output is not a JSON object");
  return j;
}

class CommandProfiler final : public Profiler {
 public:
  CommandProfiler(std::string command, std::string scratch_dir)
      : command_(std::move(command)), scratch_dir_(std::move(scratch_dir)) {}
  bool simulated() const override { return false; }

  void profile(const EvalRequest& request, Evaluation& checked) override {
    std::string kernel = materialize(request.kernel_path, request.kernel_text, "kernel");
    std::string reference = materialize(request.reference_path, request.reference_text, "reference");
    // `sh -c '<command> "$@"' accelopt-profiler K R`: the command may carry its own arguments.
    CaptureResult r = run_capture({"/bin/sh", "-c", command_ + " \"$@\"", "accelopt-profiler", kernel, reference},
                                  request.limits.max_seconds);
    if (r.status.timed_out || !r.status.exited || r.status.code != 0)
      throw ProfilerError("profiler command '" + command_ + "' failed (" + r.status.describe() +
                          "): " + tail(r.err, 2000));
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(r.out);
    } catch (const nlohmann::json::exception& e) {
      throw ProfilerError("profiler command '" + command_ + "' printed invalid JSON: " + e.what() +
                          "; output: " + tail(r.out, 500));
    }
    try {
      checked.profile = trn::profile_from_json(summary_object(j));
    } catch (const ProfilerError&) {
      throw;
    } catch (const std::exception& e) {
      throw ProfilerError("profiler command '" + command_ + "' output: " + e.what());
    }
    if (checked.profile->arch.empty()) checked.profile->arch = request.arch;
  }

 private:
  // External programs need files: use the given path when it holds this text, else write the text
  // to a content-named file in the scratch directory (shared, so reused across jobs).
  std::string materialize(const std::string& path, const std::string& text, const char* what) {
    if (!path.empty() && ::access(path.c_str(), R_OK) == 0 && (text.empty() || read_text_file(path) == text))
      return path;
    if (text.empty()) throw ProfilerError(std::string("no ") + what + " text or readable path for the profiler");
    std::string out = scratch_dir_ + "/" + what + "-" + base::content_hash(text) + ".py";
    if (::access(out.c_str(), R_OK) != 0) base::write_file_atomic(out, text);
    return out;
  }

  std::string command_, scratch_dir_;
};

}  // namespace

std::unique_ptr<Profiler> make_profiler(const ProfilerConfig& config, const std::string& scratch_dir) {
  if (config.kind == "sim") return std::make_unique<SimProfiler>();
  if (config.kind == "command") {
    if (config.command.empty()) throw std::runtime_error("profiler 'command' needs a command (--profiler-command)");
    return std::make_unique<CommandProfiler>(config.command, scratch_dir);
  }
  throw std::runtime_error("unknown profiler '" + config.kind + "' (expected sim or command)");
}

}  // namespace eval
