// `accelopt eval`: check one kernel against a task reference and profile it on the simulator.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/arg_specs.h"
#include "bench/task_case.h"
#include "cli/command.h"
#include "eval/evaluate.h"
#include "eval/evaluation.h"
#include "eval/ref_cache.h"

namespace {

struct EvalOptions {
  std::string reference, kernel, entry, arch = "trn1", seeds = "0,21,42,63,84", cache_dir, bench_root;
  double tolerance = 0;  // 0: not given; then the task's, when the reference is a benchmark case's
  double timeout = 600;
  bool json = false, no_profile = false, no_cache = false;
};

void print_profile(const trn::Profile& p) {
  fmt::print("profile ({}):\n", p.arch);
  fmt::print("  latency            {:.4f} ms\n", p.latency);
  if (p.latency_high > 0)
    fmt::print("  error band         {:.4f} - {:.4f} ms ({}-bound; docs/simulator.md)\n", p.latency_low,
               p.latency_high, p.bound_class);
  fmt::print("  hbm read/write     {} / {} bytes\n", p.hbm_read_bytes, p.hbm_write_bytes);
  fmt::print("  spill save/reload  {} / {} bytes\n", p.spill_save_bytes, p.spill_reload_bytes);
  fmt::print("  hardware flops     {} (transpose {})\n", p.hardware_flops, p.transpose_flops);
  fmt::print("  hfu                {:.1f}%\n", p.hfu_estimated_percent * 100);
  fmt::print("  engine active      scalar {:.1f}%, vector {:.1f}%, gpsimd {:.1f}%\n",
             p.scalar_engine_active_time_percent * 100, p.vector_engine_active_time_percent * 100,
             p.gpsimd_engine_active_time_percent * 100);
  if (p.sbuf_space_wait_ms)  // the simulator's own field (docs/simulator.md, On-chip memory)
    fmt::print("  sbuf space wait    {:.4f} ms (compute held back by SBUF space)\n", *p.sbuf_space_wait_ms);
  fmt::print("  instructions       {}\n", p.instructions);
}

// The tolerance a kernel was judged by and where it came from, so a reader of a pass or a mismatch
// knows which bar it was (mamba's is 3e-5, an unbenchmarked reference's 2e-5).
struct Tolerance {
  double rel_l2 = bench::kDefaultTolerance;
  std::string source;  // "--tol", "task <name>", or "default (not a benchmark case)"
};

Tolerance tolerance_for(const EvalOptions& opt) {
  if (opt.tolerance > 0) return {opt.tolerance, "--tol"};
  if (auto task = bench::case_for_reference(opt.reference, opt.bench_root))
    return {task->effective_tolerance(), "task " + task->task};
  return {bench::kDefaultTolerance, "default (not a benchmark case)"};
}

void print_text(const eval::Evaluation& e, const Tolerance& tol) {
  fmt::print("status: {}\ncorrect: {}\n", eval::to_string(e.status), e.correct ? "yes" : "no");
  fmt::print("tolerance: rel_l2 < {:.1e} ({})\n", tol.rel_l2, tol.source);
  for (const auto& s : e.seeds)
    fmt::print("  seed {:>3}: rel_l2 {:.3e}{}\n", s.seed, s.rel_l2, s.correct ? "" : "  MISMATCH");
  for (const auto& d : e.diagnostics) fmt::print("{}\n", d);
  if (e.profile) print_profile(*e.profile);
}

int run_eval(const EvalOptions& opt) {
  eval::EvalRequest req;
  req.kernel_path = opt.kernel;
  req.entry = {opt.entry, cli::kEntryOption};
  req.reference_path = opt.reference;
  req.arch = opt.arch;
  req.seeds = bench::parse_seeds(opt.seeds);
  const Tolerance tol = tolerance_for(opt);
  req.tolerance = tol.rel_l2;
  req.profile = !opt.no_profile;
  req.cache_dir = opt.no_cache ? "" : (opt.cache_dir.empty() ? eval::default_ref_cache_dir() : opt.cache_dir);
  req.limits = eval::limits_for_cpu_seconds(opt.timeout);
  eval::Evaluation e = eval::evaluate(req);
  if (opt.json) {
    nlohmann::json j = eval::to_json(e);
    j["tolerance"] = {{"rel_l2", tol.rel_l2}, {"source", tol.source}};
    fmt::print("{}\n", eval::json_text(j, 2));
  } else {
    print_text(e, tol);
  }
  return e.correct ? 0 : 1;
}

cli::RunFn setup_eval(CLI::App& sub) {
  auto opt = std::make_shared<EvalOptions>();
  sub.add_option("--reference", opt->reference, "task reference (.py: get_inputs, forward, transform_*)")->required();
  sub.add_option("--kernel", opt->kernel, "kernel file (.py: @nki.jit def kernel)")->required();
  cli::add_entry_option(sub, opt->entry);
  sub.add_option("--arch", opt->arch, "simulated NeuronCore")->check(CLI::IsMember({"trn1", "trn2"}));
  sub.add_option("--seeds", opt->seeds, "comma-separated numpy seeds");
  sub.add_option("--tol", opt->tolerance, "relative L2 tolerance (default: the task's when the reference is a benchmark case's, else 2e-5)")->check(cli::finite_positive());
  sub.add_option("--bench-root", opt->bench_root, "benchmark directory whose case for the reference gives the tolerance (default: the bundled nkibench)");
  sub.add_option("--timeout", opt->timeout, "CPU-time limit of the evaluation, seconds (wall-clock backstop: 4x; docs/evaluation.md)")->check(cli::finite_positive());
  sub.add_option("--cache-dir", opt->cache_dir, "reference-output cache directory");
  sub.add_flag("--no-cache", opt->no_cache, "do not read or write cached reference outputs");
  sub.add_flag("--no-profile", opt->no_profile, "check only, skip the simulator");
  sub.add_flag("--json", opt->json, "print the Evaluation as JSON");
  return [opt] { return run_eval(*opt); };
}

cli::CommandRegistrar reg("eval", "check a kernel against a task reference and profile it", setup_eval);

}  // namespace
