// Engine assignment: run an elementwise instruction on another engine (Vector, GpSimd, or the
// Scalar Engine for tensor_scalar) to balance their load. nl.add / nl.multiply / ... of two tiles
// become nisa.tensor_tensor(..., engine=...), of a tile and a number nisa.tensor_scalar. GpSimd
// has no path to PSUM: an instruction touching a PSUM tile never moves there, and an instruction
// is offered only the engines the ISA table lets run its ALU operations on its data (bitvec: the
// Vector Engine only; power and 32-bit integer add: GpSimd only), the table the check and the
// trace read (trn/alu_engines.h). A newer-API nisa.tensor_copy on NeuronCore-v2, which has no
// Scalar Engine form there (nki-language.md 12.2), moves to the Scalar Engine written as
// nisa.activation(op=nl.copy) (copy_as_activation).
#include <fmt/core.h>

#include "loopnest/alu_engine.h"
#include "loopnest/api.h"
#include "loopnest/scalar_step.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool touches_psum(const Kernel& k, const Op& op) {
  if (op.dst && k.tensor(storage_of(k, op.dst->tensor)).memory == Memory::Psum) return true;
  for (const Access* a : reads(op))
    if (k.tensor(storage_of(k, a->tensor)).memory == Memory::Psum) return true;
  return false;
}

const char* engine_word(Engine e) {
  switch (e) {
    case Engine::Vector: return "vector";
    case Engine::Scalar: return "scalar";
    case Engine::GpSimd: return "gpsimd";
    default: return "";
  }
}

// A newer-API kernel's `nisa.tensor_copy` traced for NeuronCore-v2 stays on VectorE (its API has
// no Scalar Engine tensor_copy there: "use activation(op=nl.copy)", nki-language.md 12.2), so the
// PSUM evacuations the legacy compiler balances onto ScalarE add to VectorE's work. The site
// writes it as the copy activation, which runs on ScalarE: on the form the same copy, its origin
// the activation (as the lift holds an author's `nisa.activation(op=nl.copy)`, and as the emitter
// prints it), its dst, mask and dtype kept. A copy on an engine the kernel names is left alone.
bool copy_as_activation(const Kernel& k, const Analysis& an, const OpRef& r, const SiteSink& sink) {
  const Op& op = r.op();
  if (op.api != "nisa.tensor_copy" || op.origin_api == "nisa.activation" || !k.dialect.new_api ||
      k.nc_version >= 3 || op.accumulate || op.engine_explicit)
    return false;
  const Arg* src = op.arg("src");
  if (!src || src->value.kind != Operand::Kind::Tile) return false;
  Site s = make_site(k, an, r, "run `copy` on the scalar engine as nisa.activation(op=nl.copy)",
                     {{"engine", engine_word(Engine::Scalar)}, {"from", engine_word(op.engine)}});
  const OpRef* target = &r;
  return sink(s, [target] {
    Op& o = target->op();
    for (auto& a : o.args) a.positional = false;
    o.origin_api = "nisa.activation";
    target->node->dirty = true;
  });
}

class EngineAssign : public Transform {
 public:
  std::string name() const override { return "engine_assign"; }
  bool balances_engines() const override { return true; }
  std::string description() const override {
    return "run an elementwise instruction on another engine (Vector, GpSimd or Scalar) to balance their load";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      const Op& op = r.op();
      if (copy_as_activation(k, an, r, sink)) return true;
      std::vector<Engine> targets;
      bool tensor_scalar = op.api == "nisa.tensor_scalar";
      bool tensor_tensor = op.api == "nisa.tensor_tensor";
      // nl.divide (and the `/` operator) excluded: its ISA spelling (tensor_scalar / tensor_tensor
      // with op=nl.divide) does not compile, divide "is not in the ISA operator table"
      // (nki-language.md 9.1); the kernel's own nisa.* divide is refused by the interpreter.
      bool language = is_binary_language_op(op.api) && isa_operator(operator_symbol(op.api));
      const Operand *x = nullptr, *y = nullptr;
      if (language) {
        const Arg *ax = op.arg("x"), *ay = op.arg("y");
        if (!ax || !ay) continue;
        x = &ax->value, y = &ay->value;
        bool xt = x->kind == Operand::Kind::Tile, yt = y->kind == Operand::Kind::Tile;
        if (!xt && !yt) continue;
        // A number or a per-partition [P, 1] tile makes it a tensor_scalar instruction.
        if (tensor_scalar_form(*x, *y)) tensor_scalar = true;
        else if (xt && yt) tensor_tensor = true;
        else continue;
        // nl.add of a [P, F] tile and a [1, F] row broadcasts the row over the partitions (nl.*
        // APIs do, nki-language.md 3.7); nisa.tensor_tensor does not ("same partition size and the
        // same number of elements per partition", 8.3; err_num_partition_mismatch): a broadcast
        // pair has no tensor_tensor spelling.
        if (tensor_tensor && !(x->access.tile_shape() == y->access.tile_shape())) continue;
      }
      if (!tensor_scalar && !tensor_tensor) continue;
      // An in-place update (`acc = acc + x` written destination-first) stays where the
      // accumulation is: an accumulating `acc += ...` has no engine of its own either.
      bool in_place = false;
      Ranges ranges = k.ranges();
      for (const auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && !a.output)
          in_place = in_place || (op.dst && may_overlap_across(k, a.value.access, *op.dst, ranges));
      if (in_place) continue;
      for (Engine e : {Engine::Vector, Engine::GpSimd, Engine::Scalar}) {
        if (e == op.engine) continue;
        if (e == Engine::GpSimd && touches_psum(k, op)) continue;
        if (!alu_may_run_on(k, op, e)) continue;  // the ISA table (no two-tile ALU on ScalarE, bitvec on VectorE, ...)
        targets.push_back(e);
      }
      for (Engine e : targets) {
        std::string word = engine_word(e);
        Site s = make_site(k, an, r, fmt::format("run `{}` on the {} engine", op_kind(op), word),
                           {{"engine", word}, {"from", engine_word(op.engine)}});
        const OpRef* target = &r;
        bool as_tt = language && tensor_tensor, as_ts = language && tensor_scalar;
        // The nl.* op's dtype is the promotion of its operands (a bf16 tile times 0.5 is float32);
        // the nisa instruction's follows its data tile unless told: say the dtype when they differ.
        std::string keep_dtype;
        if ((as_tt || as_ts) && !op.arg("dtype")) {
          int out = op.result >= 0 ? op.result : (op.dst ? op.dst->tensor : -1);
          std::string first;
          for (const Operand* o : {x, y})
            if (first.empty() && o->kind == Operand::Kind::Tile) first = k.tensor(o->access.tensor).dtype;
          if (out >= 0 && k.tensor(out).dtype != first) keep_dtype = k.tensor(out).dtype;
        }
        if (sink(s, [target, e, word, as_tt, as_ts, keep_dtype] {
              Op& o = target->op();
              Operand engine = symbol("engine:" + word);
              if (as_tt || as_ts) {
                // nl.multiply(x, y) -> nisa.tensor_tensor(data1=x, data2=y, op=nl.multiply, engine=...)
                Operand x = o.arg("x")->value, y = o.arg("y")->value;
                std::string opname = o.api.substr(3);
                std::vector<Arg> args;
                if (as_tt) {
                  args = {arg("data1", x), arg("data2", y), arg("op", symbol(opname))};
                } else {
                  bool x_data = x.kind == Operand::Kind::Tile && (y.kind == Operand::Kind::Number || !scalar_like(x));
                  args = {arg("data", x_data ? x : y), arg("op0", symbol(opname)), arg("operand0", x_data ? y : x)};
                  if (!x_data && opname != "add" && opname != "multiply" && opname != "maximum" && opname != "minimum")
                    args.push_back(arg("reverse0", symbol("True")));
                }
                for (const char* keep : {"mask", "dtype"})
                  if (const Arg* a = o.arg(keep)) args.push_back(*a);
                if (!keep_dtype.empty()) args.push_back(arg("dtype", symbol("dtype:" + keep_dtype)));
                args.push_back(arg("engine", engine));
                for (auto& a : args) a.positional = false;
                o.api = as_tt ? "nisa.tensor_tensor" : "nisa.tensor_scalar";
                o.args = std::move(args);
              } else if (Arg* a = o.arg("engine")) {
                a->value = engine;
              } else {
                o.args.push_back(arg("engine", engine));
              }
              o.engine = e;
              o.engine_explicit = true;
              target->node->dirty = true;
            }))
          return true;
      }
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_engine_assign() { return std::make_unique<EngineAssign>(); }

}  // namespace loopnest
