// Small helpers for declaring builtin-module functions and the plain constant objects of the
// nki modules (buffers, par_dim, enum namespaces).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nki/value.h"
#include "trn/trace.h"

namespace nki::lib {

using LibFn = std::function<Value(Interpreter&, BoundArgs&)>;

inline Param req(const char* name) { return Param{name, std::nullopt, false}; }
inline Param opt(const char* name, Value dflt = Value()) { return Param{name, dflt, false}; }
inline Param kwonly(const char* name, Value dflt = Value()) { return Param{name, dflt, true}; }

// A builtin that binds its arguments itself (several call forms) but declares the signature its
// keywords are checked against, so signature() reports it like make_builtin's.
struct DeclaredBuiltin : BuiltinObj {
  std::shared_ptr<const Signature> sig;
  DeclaredBuiltin(std::shared_ptr<const Signature> s, NativeFn f) : BuiltinObj(s->name, std::move(f)), sig(std::move(s)) {}
  const Signature* signature() const override { return sig.get(); }
};

// Adds `prefix.name` to the module. Its keywords are exactly `params`: an unknown keyword is a
// TypeError at the call (docs/language.md "Keywords"), never dropped.
void def(ModuleObj& m, const std::string& prefix, const std::string& name, std::vector<Param> params, LibFn fn);
// A documented API accelopt does not run: calling it is an Unsupported error naming it and the
// reason (a compiler-style diagnostic at the call), never "no attribute". Names the module
// already defines are left alone.
void refuse(ModuleObj& m, const std::string& prefix, const std::string& name, const std::string& reason);

// A documented keyword whose effect accelopt does not model: accepted when absent (None), else an
// Unsupported error naming the keyword and `why`, so no kernel runs with an option dropped.
void refuse_keyword(const Value& given, std::string_view api, std::string_view keyword, std::string_view why);
// compute_dtype= of the nl.* composites (softmax, rms_norm), which compute in fp32: None and
// float32 are what they do; another format would round intermediates, which is refused.
void require_fp32_compute(const Value& compute_dtype, std::string_view api);

// nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, nl.private_hbm (and direct-allocation buffer objects).
struct BufferObj : Object {
  trn::BufferKind kind;
  std::string label;
  BufferObj(trn::BufferKind k, std::string l) : kind(k), label(std::move(l)) {}
  std::string type_name() const override { return "buffer"; }
  std::string repr() const override { return label; }
  Value call(Interpreter& in, CallArgs& args) override { return Value(shared_from_this()); }  // mod_alloc(...)
  Value get_attr(Interpreter& in, std::string_view name) override;  // .mod_alloc, .auto_alloc, .alloc
  bool has_attr(std::string_view name) const override;
  // `t.buffer == nl.sbuf`: buffers of one kind are equal (the HBM spellings too), and equal to
  // their name as a string (`t.buffer == "sbuf"`).
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
};

// nl.par_dim(n) inside a creation shape.
struct ParDimObj : Object {
  int64_t size;
  explicit ParDimObj(int64_t n) : size(n) {}
  std::string type_name() const override { return "par_dim"; }
  std::string repr() const override { return "par_dim(" + std::to_string(size) + ")"; }
};

// A namespace of named constants (nl.tile_size, nl.fp32, nisa.reduce_cmd, ...).
struct NamespaceObj : Object {
  std::string label;
  std::vector<std::pair<std::string, Value>> attrs;
  explicit NamespaceObj(std::string l) : label(std::move(l)) {}
  std::string type_name() const override { return label; }
  std::string repr() const override { return "<" + label + ">"; }
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  void set(std::string name, Value v) { attrs.emplace_back(std::move(name), std::move(v)); }
};

// A documented name accelopt does not run (nki.collectives, nl.int64, the MX packed dtypes): it
// can be named (imported, stored), and any use -- a call, an attribute, a dtype= argument --
// is an Unsupported error with the reason, reported at that use.
struct RefusedObj : Object {
  std::string label, reason;
  RefusedObj(std::string l, std::string r) : label(std::move(l)), reason(std::move(r)) {}
  std::string type_name() const override { return label; }
  std::string repr() const override { return "<" + label + ">"; }
  [[noreturn]] void refuse(std::string_view use = {}) const;
  Value call(Interpreter&, CallArgs&) override { refuse(); }
  Value get_attr(Interpreter&, std::string_view name) override { refuse(name); }
};

// An engine selector (nisa.vector_engine, ...); `unknown` leaves the choice to the library.
struct EngineObj : Object {
  std::optional<trn::Engine> engine;
  std::string label;
  EngineObj(std::optional<trn::Engine> e, std::string l) : engine(e), label(std::move(l)) {}
  std::string type_name() const override { return "engine"; }
  std::string repr() const override { return label; }
};

// A passthrough decorator/directive object: called with a function returns it, called with
// options returns itself (nki.jit, nki.jit(additional_compile_opt=...), nki.compiler.*).
struct PassthroughObj : Object {
  std::string label;
  explicit PassthroughObj(std::string l) : label(std::move(l)) {}
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return "<" + label + ">"; }
  Value call(Interpreter& in, CallArgs& args) override;
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override { return true; }
  // `with nki.compiler.no_reorder():` and the other directive scopes: no functional effect.
  Value enter(Interpreter& in) override { return Value(shared_from_this()); }
};

// Annotations such as nt.tensor[128, 512], nki.tensor or typing.Optional[int]: subscripting gives
// the annotation back (annotations have no run-time effect).
struct AnnotationObj : PassthroughObj {
  using PassthroughObj::PassthroughObj;
  Value get_item(Interpreter& in, const Value& index) override { return Value(shared_from_this()); }
};

// Adds the dtype constants (float32, bfloat16, ..., bool_) to a module.
void add_dtype_constants(ModuleObj& m);

}  // namespace nki::lib
