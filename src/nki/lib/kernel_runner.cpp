#include "nki/lib/kernel_runner.h"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "nki/interp_impl.h"
#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/kernel_context.h"
#include "nki/lib/kernel_launch.h"
#include "nki/lib/nki_tensor.h"
#include "tensor/ops.h"

namespace nki::lib {

namespace {

Value kernel_function(ModuleObj& module, const std::string& entry) {
  std::string problem;
  Value fn = find_kernel_entry(module, entry, &problem);
  if (fn.is_none()) throw NkiError(ErrorKind::Name, problem);
  return fn;
}

Value input_tensor(KernelContext& ctx, const NdArrayObj& a, const std::string& name, bool in_place = false) {
  tensor::Shape shape = a.array.shape();
  auto st = std::make_shared<TensorStorage>();
  st->shape = shape;
  st->strides = c_strides(shape);
  st->dtype = a.array.dtype();
  st->buffer = trn::BufferKind::Hbm;
  st->id = ctx.new_tensor_id();
  st->is_input = true;
  st->name = name;
  // A private copy unless the caller lends its arrays: kernels must not change the caller's arrays.
  if (ctx.numerics && a.array.has_data()) st->data = in_place ? a.array.contiguous() : a.array.copy();
  else st->data = tensor::Array::shape_only(shape, st->dtype);
  ctx.emit_alloc(*st);
  return make_tensor(std::move(st));
}

// The storages of the arguments bound to parameters annotated `nt.mutable_tensor`: the only
// arguments a kernel may update and return as outputs (any other write of an argument is the
// compiler's err_cannot_update_immutable_parameter).
std::set<const TensorStorage*> mutable_arguments(const Value& kernel, const CallArgs& args) {
  Value fn = kernel;
  if (kernel.is_object())
    if (auto* jit = dynamic_cast<JitKernelObj*>(kernel.object().get())) fn = jit->fn;
  std::set<const TensorStorage*> out;
  auto* f = fn.as<FunctionObj>();
  if (!f) return out;
  auto add = [&](const Value& v) {
    if (auto* t = v.as<NkiTensorObj>()) out.insert(t->storage.get());
  };
  const auto& params = f->code->params;
  for (size_t i = 0; i < params.size(); ++i) {
    const Expr* a = params[i].annotation.get();
    bool is_mutable = a && ((a->kind == ExprKind::Attribute && static_cast<const AttributeExpr*>(a)->attr == "mutable_tensor") ||
                            (a->kind == ExprKind::Name && static_cast<const NameExpr*>(a)->id == "mutable_tensor"));
    if (!is_mutable) continue;
    if (i < args.args.size()) add(args.args[i]);
    for (const auto& [name, v] : args.kwargs)
      if (name == params[i].name) add(v);
  }
  return out;
}

// Where the kernel function returns its value: the value of its last `return` with one (in its
// body or the branches of an `if`), for a diagnostic about what it returned; unknown otherwise.
SourceLoc return_location(const Value& kernel) {
  Value fn = kernel;
  if (kernel.is_object())
    if (auto* jit = dynamic_cast<JitKernelObj*>(kernel.object().get())) fn = jit->fn;
  auto* f = fn.as<FunctionObj>();
  if (!f || !f->env || !f->env->ast) return {};
  const Expr* found = nullptr;
  std::function<void(const Block&)> walk = [&](const Block& body) {
    for (const auto& s : body) {
      if (s->kind == StmtKind::Return && static_cast<const ReturnStmt&>(*s).value)
        found = static_cast<const ReturnStmt&>(*s).value.get();
      if (s->kind == StmtKind::If) {
        walk(static_cast<const IfStmt&>(*s).body);
        walk(static_cast<const IfStmt&>(*s).orelse);
      }
    }
  };
  walk(f->code->body);
  return found ? loc_of(f->env->ast->file, found->span) : SourceLoc{};
}

// `returned`: the kernel returned it (an output argument of a baremetal kernel is not returned).
// `in_out`: it is an argument annotated nt.mutable_tensor. `kernel`: the kernel function that
// returned it, whose return statement an error points at (found only when there is an error).
tensor::Array output_array(const Value& v, bool returned = true, bool in_out = false, const Value* kernel = nullptr) {
  // A host wrapper's own numpy array, filled by the kernel it launched (call_within_run).
  if (auto* a = v.as<NdArrayObj>(); a && !a->is_scalar) return a->array.copy();
  auto* t = v.as<NkiTensorObj>();
  if (!t)
    throw NkiError(ErrorKind::Type,
                   fmt::format("the kernel must return its output HBM tensors (one, or a tuple or list of them), got {}",
                               v.type_name()),
                   kernel ? return_location(*kernel) : SourceLoc{});
  // An argument the kernel wrote and returns is an in/out argument (`param: nt.mutable_tensor`,
  // which the compiler requires to be returned: err_mutable_parameter_not_returned); an input
  // returned unwritten is no output at all.
  if (returned && t->storage->is_input && !(in_out && t->storage->written))
    throw NkiError(ErrorKind::Rule, fmt::format("the kernel returned its input tensor '{}'; outputs must be tensors "
                                                "the kernel creates (nl.ndarray(..., buffer=nl.shared_hbm)) or "
                                                "arguments annotated nt.mutable_tensor that it updates in place",
                                                t->storage->name),
                   kernel ? return_location(*kernel) : SourceLoc{});
  if (t->on_chip())
    throw NkiError(ErrorKind::Rule, fmt::format("the kernel returned an {} tensor; outputs must be HBM tensors created "
                                                "with buffer=nl.shared_hbm", trn::to_string(t->storage->buffer)),
                   kernel ? return_location(*kernel) : SourceLoc{});
  if (!t->storage->data.has_data()) return tensor::Array::shape_only(t->shape(), t->dtype());
  // The whole of a tensor's storage is handed over as it is (the run is over: nothing writes it
  // again); a part of one, or a digit-split view, is copied.
  tensor::Array region = read_region(*t, Box::full(t->shape()));
  if (region.is_contiguous() && region.size() == t->storage->data.size()) return region;
  return region.copy();
}

}  // namespace

KernelRunResult run_kernel(Interpreter& in, ModuleObj& kernel_module, const std::vector<Value>& inputs,
                           const KernelRunOptions& options) {
  Value fn = kernel_function(kernel_module, options.entry);
  KernelContext ctx;
  ctx.numerics = options.numerics;
  ctx.sink = options.sink;
  ctx.nc_version = options.nc_version;
  ctx.interpreter = &in;
  ContextScope scope(ctx);
  CallArgs call;
  std::vector<std::pair<size_t, uint64_t>> input_sums;  // (argument position, checksum)
  std::vector<std::shared_ptr<TensorStorage>> input_storages;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto* a = inputs[i].as<NdArrayObj>();
    call.args.push_back(a && !a->is_scalar ? input_tensor(ctx, *a, fmt::format("input{}", i), options.inputs_in_place) : inputs[i]);
    if (auto* t = call.args.back().as<NkiTensorObj>(); t && options.numerics) {
      input_sums.emplace_back(i, tensor::checksum(t->storage->data));
      input_storages.push_back(t->storage);
    }
  }
  std::vector<Value> arguments = call.args;
  std::set<const TensorStorage*> in_out = mutable_arguments(fn, call);
  Value ret;
  try {
    ret = in.call(fn, std::move(call));
  } catch (const tensor::ArrayError& e) {
    throw NkiError(ErrorKind::Value, e.what());
  }
  ctx.flush();
  KernelRunResult result;
  // A returned argument updated in place is an output argument, not a mutated input.
  auto returned_output = [&](const Value& item) {
    auto* t = item.as<NkiTensorObj>();
    bool mutable_argument = t && in_out.count(t->storage.get());
    result.outputs.push_back(output_array(item, true, mutable_argument, &fn));
    for (size_t i = 0; mutable_argument && i < arguments.size(); ++i)
      if (auto* a = arguments[i].as<NkiTensorObj>(); a && a->storage == t->storage) result.written_arguments.push_back(i);
  };
  // Several outputs: a tuple, or a list (`return [out, stats]`; the newer front end takes tuples and
  // lists alike as kernel values, nki-language.md 12.1), handed to the harness as a tuple.
  const std::vector<Value>* several = nullptr;
  if (auto* t = ret.as<TupleObj>()) several = &t->items;
  else if (auto* l = ret.as<ListObj>()) several = &l->items;
  if (several) {
    result.returned_tuple = true;
    for (auto& item : *several) returned_output(item);
  } else if (!ret.is_none()) {
    returned_output(ret);
  } else {
    // A kernel written for nki.baremetal returns nothing and writes its output arguments (the
    // matrix multiplication and Mamba tutorials): those are its outputs, in argument order.
    for (size_t i = 0; i < arguments.size(); ++i)
      if (auto* t = arguments[i].as<NkiTensorObj>(); t && t->storage->written) {
        result.outputs.push_back(output_array(arguments[i], /*returned=*/false));
        result.written_arguments.push_back(i);
      }
    result.returned_tuple = result.outputs.size() > 1;
  }
  result.instructions = ctx.instructions;
  // Written output arguments (a baremetal kernel's outputs) are not mutated inputs.
  for (size_t k = 0; k < input_sums.size(); ++k) {
    size_t position = input_sums[k].first;
    bool output = std::find(result.written_arguments.begin(), result.written_arguments.end(), position) !=
                  result.written_arguments.end();
    if (!output && tensor::checksum(input_storages[k]->data) != input_sums[k].second)
      result.mutated_inputs.push_back(position);
  }
  result.narrow_formats = ctx.narrow_formats;
  if (options.sink) options.sink->finish();
  return result;
}

bool is_host_call(const CallArgs& args) {
  auto numpy_array = [](const Value& v) {
    auto* a = v.as<NdArrayObj>();
    return a && !a->is_scalar;
  };
  for (const Value& v : args.args)
    if (numpy_array(v)) return true;
  for (const auto& kw : args.kwargs)
    if (numpy_array(kw.second)) return true;
  return false;
}

namespace {

// Host code run by the harness (a wrapper `kernel(x)` that allocates `out = np.zeros(...)` and
// launches a jitted kernel on it): the run's context is already active, so the arrays become
// tensors of this run and the kernel's results stay tensors for the wrapper to return; the
// arrays it wrote are copied back into the caller's arrays, as on a host call.
Value call_within_run(CallArgs& args, const std::function<Value(CallArgs&)>& body) {
  KernelContext& ctx = KernelContext::current();
  std::vector<std::pair<Value, Value>> passed;  // (caller's array, the kernel's tensor)
  size_t index = 0;
  auto to_tensor = [&](Value& v) {
    auto* a = v.as<NdArrayObj>();
    if (a && !a->is_scalar) {
      Value host = v;
      v = input_tensor(ctx, *a, fmt::format("host_array{}", index));
      passed.emplace_back(host, v);
    }
    ++index;
  };
  for (Value& v : args.args) to_tensor(v);
  for (auto& kw : args.kwargs) to_tensor(kw.second);
  Value ret = body(args);
  for (auto& [host, tensor] : passed) {
    auto* t = tensor.as<NkiTensorObj>();
    if (t && t->storage->written && t->storage->data.has_data())
      tensor::assign(host.as<NdArrayObj>()->array, output_array(tensor, /*returned=*/false));
  }
  return ret;
}

}  // namespace

Value call_from_host(Interpreter& in, CallArgs& args, const std::function<Value(CallArgs&)>& body,
                     const Value& kernel) {
  if (KernelContext::active()) return call_within_run(args, body);
  KernelContext ctx;
  ctx.interpreter = &in;
  ContextScope scope(ctx);
  size_t index = 0;
  auto to_tensor = [&](Value& v) {
    auto* a = v.as<NdArrayObj>();
    Value host = v;
    if (a && !a->is_scalar) v = input_tensor(ctx, *a, fmt::format("input{}", index));
    ++index;
    return host;
  };
  std::vector<std::pair<Value, Value>> passed;  // (caller's array, the kernel's tensor)
  for (Value& v : args.args) {
    Value host = to_tensor(v);
    passed.emplace_back(host, v);
  }
  for (auto& kw : args.kwargs) {
    Value host = to_tensor(kw.second);
    passed.emplace_back(host, kw.second);
  }
  std::set<const TensorStorage*> in_out = mutable_arguments(kernel, args);
  auto returned = [&](const Value& item) {
    auto* t = item.as<NkiTensorObj>();
    return make_array(output_array(item, true, t && in_out.count(t->storage.get())));
  };
  Value ret;
  try {
    ret = body(args);
  } catch (const tensor::ArrayError& e) {
    throw NkiError(ErrorKind::Value, e.what());
  }
  ctx.flush();
  if (auto* t = ret.as<TupleObj>()) {
    std::vector<Value> items;
    for (auto& item : t->items) items.push_back(returned(item));
    return make_tuple(std::move(items));
  }
  if (!ret.is_none()) return returned(ret);
  for (auto& [host, tensor] : passed)
    if (auto* t = tensor.as<NkiTensorObj>(); t && t->storage->written && host.as<NdArrayObj>())
      tensor::assign(host.as<NdArrayObj>()->array, output_array(tensor, /*returned=*/false));
  return Value();
}

}  // namespace nki::lib
