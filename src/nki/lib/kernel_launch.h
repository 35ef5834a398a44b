// How kernels are called: what @nki.jit (and baremetal, benchmark, profile, simulate) make of a
// function, SPMD launches `kernel[2, 2](...)` with nl.program_id / nl.num_programs, and the
// nki.compiler directives that apply to a whole kernel (recorded as Kernel trace records).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nki/value.h"
#include "trn/trace.h"

namespace nki::lib {

// A kernel function as the decorators return it: callable (one program), subscriptable with
// a launch grid, and carrying the compiler directives given as decorators.
struct JitKernelObj : Object {
  Value fn;
  trn::KernelInfo directives;
  bool has_directives = false;
  // Made only by harness decorators (nki.benchmark, nki.profile, nki.baremetal): the function
  // may be a host wrapper that launches another kernel of the file (find_kernel_entry).
  bool harness_only = false;
  JitKernelObj(Value f, trn::KernelInfo d, bool any) : fn(std::move(f)), directives(d), has_directives(any) {}
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return fn.repr(); }
  Value call(Interpreter& in, CallArgs& args) override;
  Value get_item(Interpreter& in, const Value& grid) override;  // kernel[grid] -> a launch
  // The function's attributes (__name__, ...); benchmark_result (nki.benchmark's device
  // latencies) is refused: there is no device.
  Value get_attr(Interpreter& in, std::string_view name) override;
};

// nki.jit, nki.baremetal, nki.benchmark, nki.profile: decorator, decorator factory with options
// (`@nki.jit(mode=...)`), or direct call `nki.baremetal(fn, save_neff_name=...)`.
struct JitDecoratorObj : Object {
  std::string label;
  bool harness = false;  // nki.benchmark / nki.profile / nki.baremetal: how a kernel is launched
  JitDecoratorObj(std::string l, bool h) : label(std::move(l)), harness(h) {}
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return "<" + label + ">"; }
  Value call(Interpreter& in, CallArgs& args) override;
};

// A compiler directive (skip_middle_end_transformations, enable_stack_allocator,
// force_auto_alloc, no_reorder, multi_buffer, allocation_scope): as a decorator it marks the
// kernel, as a `with` block or a loop's directives= it marks the run from there on.
struct KernelDirectiveObj : Object {
  std::string name;
  trn::KernelInfo info;  // the attribute it sets (none for allocation_scope)
  KernelDirectiveObj(std::string n, trn::KernelInfo i) : name(std::move(n)), info(i) {}
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return "<nki.compiler." + name + ">"; }
  Value call(Interpreter& in, CallArgs& args) override;
  Value enter(Interpreter& in) override;
};
// The nki.compiler directive objects by name.
std::vector<std::pair<std::string, Value>> compiler_directives();

// nl.spmd_dim(...) / nl.nc(n): a launch-grid dimension of the given total size.
struct SpmdDimObj : Object {
  int64_t size;
  explicit SpmdDimObj(int64_t n) : size(n) {}
  std::string type_name() const override { return "spmd_dim"; }
  std::string repr() const override { return "spmd_dim(" + std::to_string(size) + ")"; }
};

// nl.program_id(axis), nl.num_programs(axes=None), nl.program_ndim() of the running program.
int64_t program_id(int64_t axis);
int64_t num_programs(const Value& axes);
int64_t program_ndim();

// A loop's directives= argument (nl.sequential_range(n, directives=ncc.multi_buffer(2))).
void apply_loop_directives(const Value& directives);

}  // namespace nki::lib
