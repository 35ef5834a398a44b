#include "bench/checker.h"

#include <chrono>

#include <fmt/core.h>

#include "bench/kernel_exec.h"
#include "bench/ref_cache.h"
#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/modules.h"

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// Ends the check early with an outcome and one rendered diagnostic.
struct Stop {
  Outcome outcome;
  std::string diagnostic;
};

std::vector<tensor::Array> arrays_of(nki::Interpreter& in, const nki::Value& v) {
  std::vector<tensor::Array> out;
  if (auto* t = v.as<nki::TupleObj>()) {
    for (const auto& item : t->items) out.push_back(nki::lib::to_array(in, item));
  } else if (auto* l = v.as<nki::ListObj>()) {
    for (const auto& item : l->items) out.push_back(nki::lib::to_array(in, item));
  } else {
    out.push_back(nki::lib::to_array(in, v));
  }
  return out;
}

nki::Value shape_only(const nki::Value& v) {
  if (auto* a = v.as<nki::lib::NdArrayObj>(); a && !a->is_scalar)
    return nki::lib::make_array(tensor::Array::shape_only(a->array.shape(), a->array.dtype()));
  return v;
}

// Runs the harness steps in one interpreter; every failure becomes a Stop.
class Harness {
 public:
  explicit Harness(const CheckRequest& r) : req_(r), start_(Clock::now()), cache_(r.cache_dir) {
    nki::Limits limits;
    limits.max_steps = r.limits.max_steps;
    limits.max_bytes = r.limits.max_bytes;
    limits.max_seconds = r.limits.max_seconds;
    in_ = std::make_unique<nki::Interpreter>(limits);
    install_modules(*in_);
  }

  CheckResult run() {
    CheckResult result;
    try {
      load_modules();
      for (int seed : req_.seeds) {
        SeedCheck sc = run_seed(seed, result);
        result.seeds.push_back(sc);
        if (!sc.correct) {
          result.outcome = Outcome::Incorrect;
          return result;
        }
      }
      result.outcome = Outcome::Ok;
    } catch (const Stop& stop) {
      result.outcome = stop.outcome;
      result.diagnostics.push_back(stop.diagnostic);
    }
    return result;
  }

 private:
  // Each interpreter entry gets the wall time left of the whole check.
  void refresh_time_limit() {
    double used = std::chrono::duration<double>(Clock::now() - start_).count();
    double left = req_.limits.max_seconds - used;
    if (left <= 0) throw Stop{Outcome::Timeout, fmt::format("error: evaluation exceeded its time limit of {} s",
                                                            req_.limits.max_seconds)};
    nki::Limits limits = in_->limits();
    limits.max_seconds = left;
    in_->set_limits(limits);
  }

  template <class F>
  nki::Value guarded(Side side, const std::string& what, F&& body) {
    refresh_time_limit();
    try {
      return body();
    } catch (const nki::NkiError& e) {
      std::string text = nki::render(e.diag);
      if (side == Side::Reference) text = fmt::format("error in the reference ({}):\n{}", what, text);
      throw Stop{outcome_of(e, side), text};
    } catch (const Stop&) {
      throw;
    } catch (const std::exception& e) {
      throw Stop{side == Side::Reference ? Outcome::InternalError : Outcome::RuntimeError,
                 fmt::format("error: {} failed: {}", what, e.what())};
    }
  }

  std::shared_ptr<nki::ModuleObj> load(const std::string& path, const std::string& text, Side side) {
    auto src = std::make_shared<nki::SourceFile>();
    src->path = path;
    src->text = text;
    std::shared_ptr<nki::ModuleObj> module;
    guarded(side, "loading " + path, [&] {
      module = in_->load_module(src);
      return nki::Value();
    });
    return module;
  }

  nki::Value function(const std::shared_ptr<nki::ModuleObj>& m, const std::string& path, const char* name) {
    auto it = m->attrs.find(name);
    if (it != m->attrs.end()) return it->second;
    throw Stop{Outcome::InternalError, fmt::format("{}: error: reference defines no function '{}'", path, name)};
  }

  void load_modules() {
    auto ref = load(req_.reference_path, req_.reference_text, Side::Reference);
    get_inputs_ = function(ref, req_.reference_path, "get_inputs");
    forward_ = function(ref, req_.reference_path, "forward");
    to_nki_ = function(ref, req_.reference_path, "transform_to_nki_inputs");
    from_nki_ = function(ref, req_.reference_path, "transform_nki_outputs");
    kernel_module_ = load(req_.kernel_path, req_.kernel_text, Side::Kernel);
    if (find_entry_function(*kernel_module_, req_.entry).is_none())
      throw Stop{Outcome::CompileError,
                 fmt::format("{}: error: {}", req_.kernel_path, missing_entry_message(req_.entry))};
    ref_hash_ = content_hash(req_.reference_text);
  }

  void seed_numpy(int seed) {
    guarded(Side::Reference, "np.random.seed", [&] {
      nki::Value np = in_->import_module("numpy");
      nki::Value seed_fn = in_->get_attr(in_->get_attr(np, "random"), "seed");
      return in_->call(seed_fn, nki::CallArgs{{nki::Value::from_int(seed)}, {}});
    });
  }

  static std::vector<nki::Value> items_of(const nki::Value& v) {
    if (auto* l = v.as<nki::ListObj>()) return l->items;
    if (auto* t = v.as<nki::TupleObj>()) return t->items;
    return {v};
  }

  // The reference outputs for this seed as a Python value (tuple when forward returns one).
  nki::Value expected_value(int seed, const nki::Value& inputs) {
    if (auto cached = cache_.load(ref_hash_, seed)) {
      std::vector<nki::Value> items;
      for (auto& a : *cached) items.push_back(nki::lib::make_array(a));
      // Outputs are stored flattened; more than one means forward returned a tuple.
      return items.size() == 1 ? items[0] : nki::make_tuple(items);
    }
    auto forward_start = Clock::now();
    nki::Value expected = guarded(Side::Reference, "forward", [&] {
      return in_->call(forward_, nki::CallArgs{items_of(inputs), {}});
    });
    double forward_seconds = std::chrono::duration<double>(Clock::now() - forward_start).count();
    if (cache_.enabled()) cache_.store(ref_hash_, seed, arrays_of(*in_, expected), forward_seconds);
    return expected;
  }

  SeedCheck run_seed(int seed, CheckResult& result) {
    seed_numpy(seed);
    nki::Value inputs = guarded(Side::Reference, "get_inputs", [&] { return in_->call(get_inputs_, {}); });
    nki::Value expected = expected_value(seed, inputs);
    nki::Value args = guarded(Side::Reference, "transform_to_nki_inputs",
                              [&] { return in_->call(to_nki_, nki::CallArgs{{inputs}, {}}); });
    std::vector<nki::Value> arg_list = items_of(args);
    result.shape_only_args.clear();
    for (const auto& a : arg_list) result.shape_only_args.push_back(shape_only(a));
    nki::Value raw = guarded(Side::Kernel, "the kernel", [&] { return run_kernel_numerics(*in_, *kernel_module_, arg_list, req_.entry); });
    // transform_nki_outputs zips kernel and reference outputs, which would hide a count mismatch.
    size_t raw_count = items_of(raw).size(), ref_count = items_of(expected).size();
    if (raw_count != ref_count)
      throw Stop{Outcome::Incorrect, fmt::format("{}: error: seed {}: kernel returned {} output(s), reference has {}",
                                                 req_.kernel_path, seed, raw_count, ref_count)};
    nki::Value outs = guarded(Side::Reference, "transform_nki_outputs",
                              [&] { return in_->call(from_nki_, nki::CallArgs{{raw, expected}, {}}); });
    std::vector<tensor::Array> out_arrays, ref_arrays;
    guarded(Side::Kernel, "reading the kernel outputs", [&] {
      out_arrays = arrays_of(*in_, outs);
      ref_arrays = arrays_of(*in_, expected);
      return nki::Value();
    });
    Comparison cmp = compare_outputs(out_arrays, ref_arrays, req_.tolerance);
    if (!cmp.problem.empty()) throw Stop{Outcome::Incorrect, fmt::format("{}: error: seed {}: {}", req_.kernel_path, seed, cmp.problem)};
    if (!cmp.correct) result.diagnostics.push_back(mismatch_message(seed, cmp.worst));
    return SeedCheck{seed, cmp.correct, cmp.worst};
  }

  std::string mismatch_message(int seed, const OutputDiff& d) const {
    return fmt::format("{}: error: output mismatch at seed {}: rel_l2 {:.3e} >= tolerance {:.1e} "
                       "(max abs diff {:.3e}, mean abs diff {:.3e}, max rel diff {:.3e})",
                       req_.kernel_path, seed, d.rel_l2, req_.tolerance, d.max_abs_diff, d.mean_abs_diff,
                       d.max_rel_diff);
  }

  const CheckRequest& req_;
  Clock::time_point start_;
  RefCache cache_;
  std::unique_ptr<nki::Interpreter> in_;
  nki::Value get_inputs_, forward_, to_nki_, from_nki_;
  std::shared_ptr<nki::ModuleObj> kernel_module_;
  uint64_t ref_hash_ = 0;
};

}  // namespace

CheckResult check_kernel(const CheckRequest& request) {
  if (uses_lower_precision(request.kernel_text)) {
    CheckResult r;
    r.outcome = Outcome::LowerPrecision;
    r.diagnostics.push_back(fmt::format("{}: error: the kernel uses float16/bfloat16, a lower precision than the "
                                        "float32 baseline",
                                        request.kernel_path));
    return r;
  }
  try {
    return Harness(request).run();
  } catch (const std::exception& e) {
    CheckResult r;
    r.outcome = Outcome::InternalError;
    r.diagnostics.push_back(fmt::format("internal error: {}", e.what()));
    return r;
  }
}

}  // namespace bench
