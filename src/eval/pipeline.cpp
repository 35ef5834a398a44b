// eval::evaluate, the evaluation pipeline. Pipeline::run() is the evaluation, step by step:
//
//   load sources     read the kernel and the reference (never past the size cap)
//   parse            compile both once; every session below loads the compiled modules
//   for each seed, in a fresh interpreter session (no state survives between seeds):
//     reference        np.random.seed(seed), get_inputs, transform_to_nki_inputs, forward (cached)
//     run kernel       with numerics; on the last seed the same run is traced into the back end
//     precision        the float formats the run used, against the task's data formats
//     inputs           the kernel left its inputs unchanged (checksums before and after)
//     compare          output count, dtype kind, shapes, ||out - ref|| < tol * ||ref||
//   outputs follow   where the reference's outputs differ between seeds, the kernel's do too
//   lower, simulate  the back end (eval/profile_chain.h: src/lower, then the simulator) consumed
//                    the traced run: the profile
//   classify         every step fails with a typed Failure; classify() decides the status
//
// The profile is of the run that was checked, so a kernel cannot behave differently when traced.
#include "eval/evaluate.h"

#include <map>
#include <optional>

#include <fmt/core.h>

#include "base/content_hash.h"
#include "eval/compare.h"
#include "eval/kernel_exec.h"
#include "eval/precision.h"
#include "eval/profile_chain.h"
#include "eval/ref_cache.h"
#include "eval/session.h"
#include "eval/sources.h"
#include "nki/lib/array_value.h"
#include "trn/arch_config.h"

namespace eval {

Limits default_limits() {
  Limits l;
  l.max_steps = 2'000'000'000;
  l.max_bytes = 16ull << 30;
  l.max_cpu_seconds = 600;
  l.max_seconds = kWallBackstopFactor * l.max_cpu_seconds;
  return l;
}

Limits limits_for_cpu_seconds(double cpu_seconds) {
  Limits l = default_limits();
  l.max_cpu_seconds = cpu_seconds;
  l.max_seconds = kWallBackstopFactor * cpu_seconds;
  return l;
}

namespace {

// What the reference gives one seed.
struct ReferenceRun {
  std::vector<nki::Value> kernel_args;       // transform_to_nki_inputs(get_inputs())
  nki::Value expected;                       // forward(...) as a Python value
  std::vector<tensor::Array> expected_arrays;
  nki::Value from_nki;                       // transform_nki_outputs
  std::vector<tensor::DType> forward_formats;  // narrow float formats forward() computed in
};

class Pipeline {
 public:
  explicit Pipeline(const EvalRequest& request)
      : req_(request), deadlines_(deadlines_from_now(request.limits)), cache_(request.cache_dir) {
    kernel_path_ = request.kernel_path.empty() ? "kernel.py" : request.kernel_path;
    reference_path_ = request.reference_path.empty() ? "reference.py" : request.reference_path;
  }

  Evaluation run() {
    try {
      load_sources();
      parse();
      for (size_t seed_idx = 0; seed_idx < req_.seeds.size(); ++seed_idx)
        check_seed(req_.seeds[seed_idx], /*traced=*/req_.profile && seed_idx + 1 == req_.seeds.size());
      check_outputs_follow_inputs();
      finish_profile();
      evaluation_.status = Status::Ok;
      evaluation_.correct = true;
    } catch (...) {
      Evaluation failed = failed_evaluation(failed_from_current_exception(Stage::Internal));
      failed.seeds = std::move(evaluation_.seeds);  // the seeds that ran, the failing one last
      return failed;
    }
    return std::move(evaluation_);
  }

 private:
  // ---- the steps ----

  void load_sources() {
    kernel_text_ = req_.kernel_text;
    reference_text_ = req_.reference_text;
    try {
      if (kernel_text_.empty() && req_.read_files) kernel_text_ = read_source(kernel_path_, req_.limits.max_source_bytes);
    } catch (const SourceReadError& e) {
      throw failed(Failure{Stage::ReadKernel, e.too_large ? nki::ErrorKind::Limit : nki::ErrorKind::Value,
                           e.too_large ? nki::LimitKind::SourceSize : nki::LimitKind::None, "", 0, 0, e.what()});
    }
    if (auto bad = check_kernel_encoding(kernel_path_, kernel_text_)) throw *bad;
    try {
      if (reference_text_.empty() && req_.read_files)
        reference_text_ = read_source(reference_path_, req_.limits.max_source_bytes);
    } catch (const SourceReadError& e) {
      throw failed(Failure{Stage::Reference, nki::ErrorKind::Value, nki::LimitKind::None, "", 0, 0, e.what()});
    }
  }

  void parse() {
    Session compiler = new_session(Stage::ParseKernel);
    reference_ = in_reference_stage("parsing", [&] { return compiler.compile(reference_path_, reference_text_); });
    kernel_ = in_stage(Stage::ParseKernel, [&] { return compiler.compile(kernel_path_, kernel_text_); });
    reference_hash_ = base::content_hash(reference_text_);
  }

  // One seed, in a session of its own.
  void check_seed(int seed, bool traced) {
    Session session = new_session(Stage::RunKernel);
    ReferenceRun reference = run_reference(session, seed);
    KernelRun run = run_kernel(session, reference, traced);
    check_precision(run, reference);
    check_inputs_unchanged(run, seed);
    compare(session, seed, run, reference);
  }

  void check_outputs_follow_inputs() {
    for (size_t later = 1; later < output_sums_.size(); ++later) {
      for (size_t earlier = 0; earlier < later; ++earlier) {
        const SeedSums& a = output_sums_[earlier];
        const SeedSums& b = output_sums_[later];
        for (size_t out = 0; out < a.actual.size() && out < b.actual.size(); ++out) {
          if (a.expected[out] == b.expected[out] || a.actual[out] != b.actual[out]) continue;
          throw failed(Failure{Stage::Guard, nki::ErrorKind::Value, nki::LimitKind::None, kernel_path_, 0, 0,
                               fmt::format("output {} is identical for seeds {} and {} although the reference's "
                                           "differs: the kernel's output does not follow its inputs",
                                           out, a.seed, b.seed)});
        }
      }
    }
  }

  void finish_profile() {
    if (!chain_) return;
    if (chain_->failure()) throw *chain_->failure();
    evaluation_.profile = in_stage(Stage::Simulate, [&] { return chain_->profile(); });
  }

  // ---- parts of a seed ----

  ReferenceRun run_reference(Session& session, int seed) {
    auto module = in_reference_stage("loading", [&] { return session.load(reference_); });
    nki::Value get_inputs = reference_function(*module, "get_inputs");
    nki::Value forward = reference_function(*module, "forward");
    nki::Value to_nki = reference_function(*module, "transform_to_nki_inputs");
    in_reference_stage("np.random.seed", [&] {
      session.seed_numpy(seed);
      return 0;
    });
    nki::Value inputs = in_reference_stage("get_inputs", [&] { return session.call(get_inputs, {}); });
    ReferenceRun r;
    r.from_nki = reference_function(*module, "transform_nki_outputs");
    r.expected = expected_outputs(session, seed, forward, inputs, r.forward_formats);
    r.expected_arrays = in_reference_stage("reading forward's outputs",
                                           [&] { return arrays_of(session.interpreter(), r.expected); });
    r.kernel_args = items_of(in_reference_stage("transform_to_nki_inputs", [&] { return session.call(to_nki, {inputs}); }));
    return r;
  }

  // forward(inputs), or its outputs from the cache (they never change for a reference and seed).
  // `formats` receives the narrow float formats forward() computed in (the cache keeps them).
  nki::Value expected_outputs(Session& session, int seed, const nki::Value& forward, const nki::Value& inputs,
                              std::vector<tensor::DType>& formats) {
    if (auto cached = cache_.load(reference_hash_, seed, &formats)) {
      std::vector<nki::Value> items;
      for (auto& a : *cached) items.push_back(nki::lib::make_array(a));
      // Outputs are stored flattened; more than one means forward returned a tuple.
      return items.size() == 1 ? items[0] : nki::make_tuple(items);
    }
    auto start = Clock::now();
    nki::lib::NarrowFormatRecorder recorder;
    nki::Value expected = in_reference_stage("forward", [&] { return session.call(forward, items_of(inputs)); });
    double forward_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    formats = recorder.formats();
    if (cache_.enabled()) {
      auto arrays = in_reference_stage("reading forward's outputs", [&] { return arrays_of(session.interpreter(), expected); });
      cache_.store(reference_hash_, seed, arrays, forward_seconds, formats);
    }
    return expected;
  }

  KernelRun run_kernel(Session& session, const ReferenceRun& reference, bool traced) {
    if (traced) chain_.emplace(trn::arch_config(req_.arch), kernel_path_);
    return in_stage(Stage::RunKernel, [&] {
      auto module = session.load(kernel_);
      if (std::string why = missing_entry(*module, req_.entry); !why.empty())
        throw failed(Failure{Stage::ParseKernel, nki::ErrorKind::Name, nki::LimitKind::None, kernel_path_, 0, 0, why});
      return run_kernel_numerics(session.interpreter(), *module, reference.kernel_args,
                                 traced ? &chain_->sink() : nullptr, req_.entry, req_.arch);
    });
  }

  void check_precision(const KernelRun& run, const ReferenceRun& reference) {
    std::vector<tensor::DType> data_formats;
    for (const auto& arg : reference.kernel_args)
      if (auto* a = arg.as<nki::lib::NdArrayObj>(); a && !a->is_scalar) data_formats.push_back(a->array.dtype());
    for (const auto& a : reference.expected_arrays) data_formats.push_back(a.dtype());
    // A reference that quantises (rounds through fp8, computes in bf16) sets the task's format too.
    for (tensor::DType d : reference.forward_formats) data_formats.push_back(d);
    tensor::DType task = task_format(data_formats);
    auto use = below_task_format(run.narrow_formats, task);
    if (!use) return;
    nki::NkiError error(nki::ErrorKind::Value,
                        fmt::format("{} computes in {}, a lower precision than the task's {} data",
                                    use->api, tensor::name(use->dtype), tensor::name(task)),
                        use->loc);
    throw failed(Stage::Precision, error);
  }

  void check_inputs_unchanged(const KernelRun& run, int seed) {
    if (run.mutated_inputs.empty()) return;
    throw failed(Failure{Stage::Guard, nki::ErrorKind::Value, nki::LimitKind::None, kernel_path_, 0, 0,
                         fmt::format("seed {}: the kernel changed its input {} (inputs must be left unchanged)", seed,
                                     run.mutated_inputs.front())});
  }

  void compare(Session& session, int seed, const KernelRun& run, const ReferenceRun& reference) {
    // transform_nki_outputs zips kernel and reference outputs, which would hide a count mismatch.
    size_t expected_count = reference.expected_arrays.size();
    if (run.output_count != expected_count) mismatch(seed, fmt::format("kernel returned {} output(s), reference has {}",
                                                                       run.output_count, expected_count));
    // transform_nki_outputs maps the kernel's outputs onto the reference's; when it cannot (a
    // reshape to the reference's shape fails), the kernel's outputs are wrong, not the reference.
    nki::Value outs = in_stage(Stage::Compare, [&] {
      try {
        return session.call(reference.from_nki, {run.outputs, reference.expected});
      } catch (const nki::NkiError& e) {
        if (e.diag.kind == nki::ErrorKind::Limit || e.diag.kind == nki::ErrorKind::Internal) throw;
        mismatch(seed, fmt::format("the kernel's outputs do not fit the reference's (transform_nki_outputs: {})",
                                   e.diag.message));
      }
    });
    auto actual = in_stage(Stage::Compare, [&] { return arrays_of(session.interpreter(), outs); });
    Comparison cmp = compare_outputs(actual, reference.expected_arrays, req_.tolerance);
    if (!cmp.problem.empty()) mismatch(seed, cmp.problem);
    evaluation_.seeds.push_back(SeedResult{seed, cmp.correct, cmp.worst.rel_l2, cmp.worst.max_abs_diff,
                                           cmp.worst.mean_abs_diff, cmp.worst.max_rel_diff});
    if (!cmp.correct)
      mismatch(seed, fmt::format("output mismatch at seed {}: rel_l2 {:.3e} >= tolerance {:.1e} (max abs diff {:.3e}, "
                                 "mean abs diff {:.3e}, max rel diff {:.3e}){}",
                                 seed, cmp.worst.rel_l2, req_.tolerance, cmp.worst.max_abs_diff,
                                 cmp.worst.mean_abs_diff, cmp.worst.max_rel_diff,
                                 cmp.nan_note.empty() ? "" : "; " + cmp.nan_note),
               /*with_seed=*/false);
    SeedSums sums{seed, {}, {}};
    for (const auto& a : actual) sums.actual.push_back(tensor::checksum(a));
    for (const auto& a : reference.expected_arrays) sums.expected.push_back(tensor::checksum(a));
    output_sums_.push_back(std::move(sums));
  }

  // ---- mechanics ----

  Session new_session(Stage stage) {
    return in_stage(stage, [&] { return Session(req_.limits, deadlines_); });
  }

  [[noreturn]] void mismatch(int seed, const std::string& problem, bool with_seed = true) {
    std::string message = with_seed ? fmt::format("seed {}: {}", seed, problem) : problem;
    throw failed(Failure{Stage::Compare, nki::ErrorKind::Value, nki::LimitKind::None, kernel_path_, 0, 0, message});
  }

  nki::Value reference_function(const nki::ModuleObj& module, const char* name) {
    nki::Value fn = find_function(module, {name});
    if (fn.is_none())
      throw failed(Failure{Stage::Reference, nki::ErrorKind::Name, nki::LimitKind::None, reference_path_, 0, 0,
                           fmt::format("reference defines no function '{}'", name)});
    return fn;
  }

  // Runs `body` as part of `stage`: anything it throws becomes that stage's typed failure.
  template <class F>
  auto in_stage(Stage stage, F&& body) -> decltype(body()) {
    try {
      return body();
    } catch (...) {
      throw failed_from_current_exception(stage, kernel_path_);
    }
  }

  // A step of the reference; its diagnostics say which one ("error in the reference (forward)").
  template <class F>
  auto in_reference_stage(const char* what, F&& body) -> decltype(body()) {
    try {
      return body();
    } catch (...) {
      Failed f = failed_from_current_exception(Stage::Reference, reference_path_);
      f.failure.stage = Stage::Reference;
      f.rendered = fmt::format("error in the reference ({}):\n{}", what, f.rendered);
      throw f;
    }
  }

  struct SeedSums {
    int seed = 0;
    std::vector<uint64_t> expected, actual;  // output checksums
  };

  const EvalRequest& req_;
  nki::Interpreter::Deadlines deadlines_;  // one budget for every seed's session
  RefCache cache_;
  std::string kernel_path_, reference_path_, kernel_text_, reference_text_;
  std::shared_ptr<const nki::CompiledModule> kernel_, reference_;
  std::string reference_hash_;
  std::optional<ProfileChain> chain_;
  std::vector<SeedSums> output_sums_;
  Evaluation evaluation_;
};

}  // namespace

Evaluation evaluate(const EvalRequest& request) { return Pipeline(request).run(); }

}  // namespace eval
