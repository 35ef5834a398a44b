#include "nki/lib/kernel_launch.h"

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/kernel_context.h"
#include "nki/lib/kernel_runner.h"

namespace nki::lib {

namespace {

bool is_callable(const Value& v) {
  if (!v.is_object() || v.is_number()) return false;
  return v.is(ObjType::Function) || v.is(ObjType::Builtin) || v.is(ObjType::BoundMethod) ||
         dynamic_cast<JitKernelObj*>(v.object().get()) != nullptr;
}

void merge(trn::KernelInfo& into, const trn::KernelInfo& from) {
  into.skip_middle_end_transformations |= from.skip_middle_end_transformations;
  into.enable_stack_allocator |= from.enable_stack_allocator;
  into.force_auto_alloc |= from.force_auto_alloc;
  into.no_reorder |= from.no_reorder;
  into.multi_buffer |= from.multi_buffer;
}

// One SPMD launch: the kernel body once per grid point, row-major, on one core (nki-language.md
// 3.10: the legacy releases run instances serially). All programs share the first program's
// shared_hbm tensors and return them.
struct LaunchObj : Object {
  std::shared_ptr<JitKernelObj> kernel;
  std::vector<int64_t> grid;
  std::string type_name() const override { return "spmd_launch"; }
  Value call(Interpreter& in, CallArgs& args) override {
    if (is_host_call(args)) return call_from_host(in, args, [&](CallArgs& a) { return call(in, a); }, kernel->fn);
    KernelContext& ctx = KernelContext::current();
    // nki-language.md 3.10: calling a kernel with a grid from inside another kernel is not supported.
    if (!ctx.grid.empty() || ctx.jit_depth > 0)
      throw NkiError(ErrorKind::Rule, "err_nested_kernel_with_spmd_grid: a kernel cannot launch another kernel with "
                                      "a grid; launch it from host code (a plain Python function, as the SPMD "
                                      "tutorials' wrappers do), which then returns the launched kernel's outputs");
    if (kernel->has_directives) ctx.add_directives(kernel->directives);
    int64_t programs = 1;
    for (auto g : grid) programs *= g;
    struct Reset {
      KernelContext& ctx;
      ~Reset() {
        ctx.grid.clear();
        ctx.program.clear();
        ctx.launch_shared.clear();
        ctx.launch_shared_next = 0;
        ctx.launch_first_program = true;
      }
    } reset{ctx};
    ctx.grid = grid;
    ctx.program.assign(grid.size(), 0);
    Value first;
    for (int64_t p = 0; p < programs; ++p) {
      int64_t rest = p;
      for (size_t k = grid.size(); k-- > 0;) {
        ctx.program[k] = rest % grid[k];
        rest /= grid[k];
      }
      ctx.launch_first_program = p == 0;
      ctx.launch_shared_next = 0;
      Value r = in.call(kernel->fn, args);
      if (p == 0) first = r;
    }
    return first;
  }
};

int64_t grid_dim(const Value& v) {
  if (auto* d = v.is_object() ? dynamic_cast<SpmdDimObj*>(v.object().get()) : nullptr) return d->size;
  int64_t n = to_int(v, "launch grid dimension");
  if (n < 1) throw NkiError(ErrorKind::Value, fmt::format("launch grid dimensions must be positive, got {}", n));
  return n;
}

}  // namespace

Value JitKernelObj::call(Interpreter& in, CallArgs& args) {
  if (is_host_call(args)) return call_from_host(in, args, [&](CallArgs& a) { return call(in, a); }, fn);
  KernelContext& ctx = KernelContext::current();
  if (has_directives) ctx.add_directives(directives);
  struct Depth {
    KernelContext& ctx;
    explicit Depth(KernelContext& c) : ctx(c) { ++ctx.jit_depth; }
    ~Depth() { --ctx.jit_depth; }
  } depth{ctx};
  return in.call(fn, args);
}

Value JitKernelObj::get_attr(Interpreter& in, std::string_view name) {
  if (name == "benchmark_result")
    throw NkiError(ErrorKind::Unsupported,
                   "benchmark_result is not supported by accelopt: nki.benchmark's latencies are measured on a "
                   "Neuron device, and the interpreter has none (`accelopt profile` simulates the kernel's latency)");
  if (fn.is_object()) return fn.object()->get_attr(in, name);
  return Object::get_attr(in, name);
}

Value JitKernelObj::get_item(Interpreter& in, const Value& index) {
  auto launch = std::make_shared<LaunchObj>();
  launch->kernel = std::static_pointer_cast<JitKernelObj>(shared_from_this());
  if (auto* t = index.as<TupleObj>()) {
    for (const Value& v : t->items) launch->grid.push_back(grid_dim(v));
  } else {
    launch->grid.push_back(grid_dim(index));
  }
  return Value(launch);
}

Value JitDecoratorObj::call(Interpreter& in, CallArgs& args) {
  if (!args.args.empty() && is_callable(args.args[0])) {
    if (auto k = std::dynamic_pointer_cast<JitKernelObj>(args.args[0].object())) {
      k->harness_only &= harness;  // @nki.jit over @nki.benchmark: a kernel
      return args.args[0];
    }
    auto k = std::make_shared<JitKernelObj>(args.args[0], trn::KernelInfo{}, false);
    k->harness_only = harness;
    return Value(k);
  }
  return Value(shared_from_this());  // options (mode=, additional_compile_opt=, ...): the decorator
}

Value KernelDirectiveObj::call(Interpreter& in, CallArgs& args) {
  if (args.args.size() != 1 || !args.kwargs.empty() || !is_callable(args.args[0])) return Value(shared_from_this());
  trn::KernelInfo d = info;
  Value fn = args.args[0];
  if (auto k = std::dynamic_pointer_cast<JitKernelObj>(fn.object())) {
    merge(d, k->directives);
    fn = k->fn;
  }
  return Value(std::make_shared<JitKernelObj>(fn, d, true));
}

Value KernelDirectiveObj::enter(Interpreter& in) {
  KernelContext::current().add_directives(info);
  return Value(shared_from_this());
}

std::vector<std::pair<std::string, Value>> compiler_directives() {
  std::vector<std::pair<std::string, Value>> out;
  auto add = [&](const char* name, void (*set)(trn::KernelInfo&)) {
    trn::KernelInfo i;
    set(i);
    out.emplace_back(name, Value(std::make_shared<KernelDirectiveObj>(name, i)));
  };
  add("skip_middle_end_transformations", [](trn::KernelInfo& i) { i.skip_middle_end_transformations = true; });
  add("enable_stack_allocator", [](trn::KernelInfo& i) { i.enable_stack_allocator = true; });
  add("force_auto_alloc", [](trn::KernelInfo& i) { i.force_auto_alloc = true; });
  add("no_reorder", [](trn::KernelInfo& i) { i.no_reorder = true; });
  add("multi_buffer", [](trn::KernelInfo& i) { i.multi_buffer = true; });
  add("allocation_scope", [](trn::KernelInfo&) {});
  return out;
}

void apply_loop_directives(const Value& directives) {
  std::vector<Value> items;
  if (auto* t = directives.as<TupleObj>()) items = t->items;
  else if (auto* l = directives.as<ListObj>()) items = l->items;
  else items = {directives};
  for (const Value& d : items)
    if (auto* k = d.is_object() ? dynamic_cast<KernelDirectiveObj*>(d.object().get()) : nullptr)
      KernelContext::current().add_directives(k->info);
}

int64_t program_id(int64_t axis) {
  KernelContext& ctx = KernelContext::current();
  if (ctx.grid.empty()) {
    if (axis != 0) throw NkiError(ErrorKind::Value, fmt::format("nl.program_id({}): the kernel was not launched with a grid", axis));
    return 0;
  }
  if (axis < 0 || axis >= int64_t(ctx.grid.size()))
    throw NkiError(ErrorKind::Value, fmt::format("nl.program_id({}): the launch grid has {} dimension{}", axis,
                                                 ctx.grid.size(), ctx.grid.size() == 1 ? "" : "s"));
  return ctx.program[size_t(axis)];
}

int64_t num_programs(const Value& axes) {
  KernelContext& ctx = KernelContext::current();
  if (axes.is_none()) {
    int64_t n = 1;
    for (auto g : ctx.grid) n *= g;
    return n;
  }
  int64_t n = 1;
  for (int64_t axis : to_int_list(axes, "nl.num_programs axes")) {
    if (ctx.grid.empty() && axis == 0) continue;
    if (axis < 0 || axis >= int64_t(ctx.grid.size()))
      throw NkiError(ErrorKind::Value, fmt::format("nl.num_programs: axis {} is not a launch grid dimension", axis));
    n *= ctx.grid[size_t(axis)];
  }
  return n;
}

int64_t program_ndim() { return int64_t(KernelContext::current().grid.size()); }

}  // namespace nki::lib
