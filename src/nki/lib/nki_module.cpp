// The top-level nki module (neuronxcc.nki / nki) and nki.typing: decorators that mean "run on
// the interpreter" (jit, baremetal, benchmark, profile), compiler directives without functional
// effect, and type annotations.
#include "nki/interpreter.h"
#include "nki/lib/kernel_launch.h"
#include "nki/lib/kernel_runner.h"
#include "nki/lib/modules.h"
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

Value compiler_namespace() {
  auto ns = std::make_shared<NamespaceObj>("nki.compiler");
  ns->set("sbuf", Value(std::make_shared<BufferObj>(trn::BufferKind::Sbuf, "sbuf")));
  ns->set("psum", Value(std::make_shared<BufferObj>(trn::BufferKind::Psum, "psum")));
  for (auto& [name, directive] : compiler_directives()) ns->set(name, directive);
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

namespace {

// `nt.tensor[128, F]`: a shape the compiler checks an annotated assignment's value against at trace
// time (nki-language.md 11, err_annotation_shape_mismatch). `.shape` gives the dims as written;
// the check itself is the interpreter's (interp_stmt.cpp, check_shape_annotation).
struct ShapeAnnotationObj : AnnotationObj {
  Value dims;
  ShapeAnnotationObj(std::string label, Value d) : AnnotationObj(std::move(label)), dims(std::move(d)) {}
  std::string type_name() const override { return "nki tensor annotation"; }
  Value get_attr(Interpreter& in, std::string_view name) override {
    if (name == "shape") return dims;
    return AnnotationObj::get_attr(in, name);
  }
};

// nt.tensor / nki.tensor: subscripted, a shape annotation; bare, a plain annotation.
struct TensorAnnotationObj : AnnotationObj {
  using AnnotationObj::AnnotationObj;
  Value get_item(Interpreter& in, const Value& index) override {
    return Value(std::make_shared<ShapeAnnotationObj>(label + "[...]", index));
  }
};

}  // namespace

ObjectPtr make_neuronxcc_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("neuronxcc");
  m->attrs["nki"] = submodule(in, "neuronxcc.nki", make_nki_module);
  return m;
}

ObjectPtr make_nki_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki");
  for (const char* name : {"jit", "simulate"})
    m->attrs[name] = Value(std::make_shared<JitDecoratorObj>(std::string("nki.") + name, false));
  // How a kernel is launched and measured on a device: on a function that only launches another
  // kernel of the file, the decorator marks a host wrapper (find_kernel_entry).
  for (const char* name : {"baremetal", "benchmark", "profile"})
    m->attrs[name] = Value(std::make_shared<JitDecoratorObj>(std::string("nki.") + name, true));
  m->attrs["trace"] = Value(std::make_shared<PassthroughObj>("nki.trace"));
  m->attrs["tensor"] = Value(std::make_shared<TensorAnnotationObj>("nki.tensor"));
  m->attrs["compiler"] = submodule(in, "nki.compiler", make_compiler_module);
  // nki.simulate_kernel(kernel, *args, **kwargs): one run of the kernel on the interpreter.
  m->attrs["simulate_kernel"] = Value(make_builtin(
      Signature{"nki.simulate_kernel", {req("kernel")}, true, true}, [](Interpreter& in2, BoundArgs& a) {
        CallArgs call;
        call.args = a.rest;
        call.kwargs = a.extra_kwargs;
        Value kernel = a["kernel"];
        if (is_host_call(call))
          return call_from_host(in2, call, [&](CallArgs& c) { return in2.call(kernel, std::move(c)); }, kernel);
        return in2.call(kernel, std::move(call));
      }));
  m->attrs["language"] = submodule(in, "nki.language", make_language_module);
  m->attrs["isa"] = submodule(in, "nki.isa", make_isa_module);
  m->attrs["typing"] = submodule(in, "nki.typing", make_typing_module);
  m->attrs["collectives"] = Value(std::make_shared<RefusedObj>(
      "nki.collectives", "collective communication across NeuronCores; accelopt runs one core"));
  return m;
}

ObjectPtr make_typing_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki.typing");
  for (const char* name : {"mutable_tensor", "scalar"})
    m->attrs[name] = Value(std::make_shared<AnnotationObj>(std::string("nt.") + name));
  m->attrs["tensor"] = Value(std::make_shared<TensorAnnotationObj>("nt.tensor"));
  return m;
}

}  // namespace nki::lib
