// The top-level nki module (neuronxcc.nki / nki) and nki.typing: decorators that mean "run on
// the interpreter" (jit, baremetal, benchmark, profile), compiler directives without functional
// effect, and type annotations.
#include "nki/interpreter.h"
#include "nki/lib/modules.h"
#include "nki/lib/kernel_context.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

Value submodule(Interpreter& in, const char* dotted, ObjectPtr (*factory)(Interpreter&)) {
  try {
    return in.import_module(dotted);
  } catch (const NkiError&) {
    return Value(factory(in));  // not registered under that name: build a private copy
  }
}

// A function decorated with a compiler directive that changes what the compiler does with the
// whole kernel: calling it first tells the trace (a Kernel record), then runs the function.
struct AttributedFunctionObj : Object {
  Value fn;
  trn::KernelInfo info;
  AttributedFunctionObj(Value f, trn::KernelInfo i) : fn(std::move(f)), info(i) {}
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return fn.repr(); }
  Value call(Interpreter& in, CallArgs& args) override {
    KernelContext::current().emit_kernel(info);
    return in.call(fn, args);
  }
};

// @nki.compiler.skip_middle_end_transformations (with or without parentheses).
struct SkipMiddleEndObj : PassthroughObj {
  SkipMiddleEndObj() : PassthroughObj("nki.compiler.skip_middle_end_transformations") {}
  Value call(Interpreter& in, CallArgs& args) override {
    if (args.args.size() != 1 || !args.kwargs.empty() || args.args[0].is_number() || args.args[0].is_none())
      return Value(shared_from_this());
    trn::KernelInfo info;
    info.skip_middle_end_transformations = true;
    return Value(std::make_shared<AttributedFunctionObj>(args.args[0], info));
  }
};

Value compiler_namespace() {
  auto ns = std::make_shared<NamespaceObj>("nki.compiler");
  ns->set("sbuf", Value(std::make_shared<BufferObj>(trn::BufferKind::Sbuf, "sbuf")));
  ns->set("psum", Value(std::make_shared<BufferObj>(trn::BufferKind::Psum, "psum")));
  ns->set("skip_middle_end_transformations", Value(std::make_shared<SkipMiddleEndObj>()));
  for (const char* name : {"enable_stack_allocator", "force_auto_alloc",
                           "no_reorder", "multi_buffer", "allocation_scope"})
    ns->set(name, Value(std::make_shared<PassthroughObj>(std::string("nki.compiler.") + name)));
  return Value(ns);
}

}  // namespace

// `import neuronxcc.nki.compiler as ncc` and `nki.compiler.x`: one module with the directives.
ObjectPtr make_compiler_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki.compiler");
  Value ns = compiler_namespace();
  for (auto& [name, value] : static_cast<NamespaceObj&>(*ns.object()).attrs) m->attrs[name] = value;
  return m;
}

ObjectPtr make_neuronxcc_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("neuronxcc");
  m->attrs["nki"] = submodule(in, "neuronxcc.nki", make_nki_module);
  return m;
}

ObjectPtr make_nki_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki");
  for (const char* name : {"jit", "baremetal", "benchmark", "profile", "trace"})
    m->attrs[name] = Value(std::make_shared<PassthroughObj>(std::string("nki.") + name));
  m->attrs["tensor"] = Value(std::make_shared<AnnotationObj>("nki.tensor"));
  m->attrs["compiler"] = submodule(in, "nki.compiler", make_compiler_module);
  def(*m, "nki", "simulate_kernel", {req("kernel")}, [](Interpreter& in2, BoundArgs& a) {
    CallArgs call;
    call.args = a.rest;
    return in2.call(a["kernel"], std::move(call));
  });
  m->attrs["language"] = submodule(in, "nki.language", make_language_module);
  m->attrs["isa"] = submodule(in, "nki.isa", make_isa_module);
  m->attrs["typing"] = submodule(in, "nki.typing", make_typing_module);
  return m;
}

ObjectPtr make_typing_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki.typing");
  for (const char* name : {"tensor", "mutable_tensor", "scalar"})
    m->attrs[name] = Value(std::make_shared<AnnotationObj>(std::string("nt.") + name));
  return m;
}

}  // namespace nki::lib
