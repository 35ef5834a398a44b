#include "fidelity/runner.h"

#include <chrono>
#include <filesystem>
#include <regex>

#include <fmt/core.h>

#include "bench/loader.h"
#include "eval/evaluate.h"
#include "eval/profile_run.h"
#include "nki/lib/array_value.h"
#include "tensor/dtype.h"
#include "trn/arch_config.h"

namespace fidelity {
namespace {

double busy_us(const trn::Profile& p, const char* engine) {
  auto it = p.engine_busy_ms.find(engine);
  return it == p.engine_busy_ms.end() ? 0.0 : it->second * 1e3;
}

// The reference's kernel arguments at the measured shape, shape-only, with floating arrays in the
// entry's dtype (numpy has no bfloat16, so a BF16 measurement's reference produces float32 and the
// profile casts; the check runs in the reference's own dtype).
std::vector<nki::Value> profile_args(const Entry& e, const std::string& reference_text) {
  std::vector<nki::Value> args = eval::reference_kernel_args(e.reference_path, reference_text, eval::default_limits());
  if (e.dtype.empty()) return args;
  auto dtype = tensor::parse_dtype(e.dtype);
  if (!dtype) throw std::runtime_error(fmt::format("{}: unknown dtype '{}'", e.id(), e.dtype));
  for (auto& a : args)
    if (auto* arr = a.as<nki::lib::NdArrayObj>(); arr && !arr->is_scalar && tensor::is_float(arr->array.dtype()))
      a = nki::lib::make_array(tensor::Array::shape_only(arr->array.shape(), *dtype));
  return args;
}

void run_check(const Entry& e, const std::string& kernel_text, const std::string& reference_text,
               const RunOptions& options, EntryResult& r) {
  if (!options.check) {
    r.check_note = "not requested";
    return;
  }
  if (e.check == CheckMode::Slow && !options.check_slow) {
    r.check_note = "slow (--check-slow)";
    return;
  }
  eval::EvalRequest req;
  req.kernel_path = e.kernel_path;
  req.kernel_text = kernel_text;
  req.entry = e.entry;
  req.reference_path = e.reference_path;
  req.reference_text = reference_with_params(reference_text, e.check_params);
  req.seeds = {0};
  req.tolerance = e.tolerance;
  req.profile = false;  // the profile below is at the measured shape
  eval::Evaluation check = eval::evaluate(req);
  r.check = check.status == eval::Status::Ok ? CheckState::Passed : CheckState::Failed;
  r.check_note = eval::to_string(check.status);
  for (auto& d : check.diagnostics) r.diagnostics.push_back("check: " + d);
}

}  // namespace

std::string reference_with_params(const std::string& text, const std::map<std::string, std::string>& params) {
  if (params.empty()) return text;
  std::string out = text;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "\n# accelopt fidelity: this entry's parameters\n";
  for (const auto& [name, value] : params) out += fmt::format("{} = {}\n", name, value);
  return out;
}

std::string kernel_with_constants(const std::string& text, const std::map<std::string, std::string>& constants) {
  std::string out = text;
  for (const auto& [name, value] : constants) {
    std::regex assignment("^([ \\t]*)" + name + "[ \\t]*=[^=\\n][^\\n]*$", std::regex::multiline);
    std::smatch m;
    if (!std::regex_search(out, m, assignment))
      throw std::runtime_error(fmt::format("the kernel assigns no constant '{}' to set", name));
    out.replace(size_t(m.position(0)), size_t(m.length(0)), m[1].str() + name + " = " + value);
  }
  return out;
}

double simulated_quantity_us(const Entry& e, const trn::Profile& p) {
  double us = 0;
  switch (e.metric) {
    case Metric::Bench:
    case Metric::P50:
    case Metric::P99:
    case Metric::ProfileTotal:
    case Metric::Profile:
      us = p.latency * 1e3 + trn::arch_config(e.gen).launch_offset_us;
      break;
    case Metric::II:
      us = p.latency * 1e3;
      break;
    case Metric::TeActive:
      us = busy_us(p, "pe");
      break;
    case Metric::ActActive:
      us = busy_us(p, "act");
      break;
    case Metric::DmaActive:
      // The time at least one transfer moves data (neuron-profile's dma_active_time).
      us = p.dma_active_time_percent * p.latency * 1e3;
      break;
    case Metric::None:
      return 0;
  }
  return us / e.per;
}

EntryResult run_entry(const Entry& e, const RunOptions& options) {
  EntryResult r;
  r.entry = &e;
  r.measured_us = e.measured_us();
  std::string kernel_text, reference_text;
  try {
    kernel_text = kernel_with_constants(bench::read_file(e.kernel_path), e.constants);
    reference_text = bench::read_file(e.reference_path);
  } catch (const std::exception& err) {
    r.profile_outcome = eval::Status::InternalError;
    r.diagnostics.push_back(err.what());
    return r;
  }
  run_check(e, kernel_text, reference_text, options, r);

  eval::TraceRequest req;
  req.kernel_path = e.kernel_path;
  req.kernel_text = kernel_text;
  req.entry = e.entry;
  try {
    req.args = profile_args(e, reference_with_params(reference_text, e.params));
  } catch (const std::exception& err) {
    r.profile_outcome = eval::Status::InternalError;
    r.diagnostics.push_back(fmt::format("profile: {}", err.what()));
    return r;
  }
  std::string timeline;
  if (!options.timeline_dir.empty()) {
    std::string file = e.id();
    for (char& c : file)
      if (c == '/') c = '.';
    timeline = (std::filesystem::path(options.timeline_dir) / (file + ".json")).string();
  }
  auto start = std::chrono::steady_clock::now();
  trn::ArchConfig arch = trn::arch_config(e.gen);
  for (const auto& [name, value] : options.parameters) trn::set_parameter(arch, name, value);
  eval::ProfileRun run = eval::profile_kernel(
      req, arch, {.timeline_path = timeline, .lowering = options.lowering, .price_sbuf_space = false});
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.profile_outcome = run.status;
  for (auto& d : run.diagnostics) r.diagnostics.push_back("profile: " + d);
  if (run.profile) {
    r.profile = std::move(run.profile);
    r.simulated_us = simulated_quantity_us(e, *r.profile);
  }
  return r;
}

}  // namespace fidelity
