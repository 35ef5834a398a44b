// Transformations of tiles and instructions: a tile's free size, the engine of elementwise work,
// reading PSUM directly instead of copying it to SBUF first, and the choice of transpose unit.
#include <span>

#include "agents/builtin/transform_util.h"
#include "loopnest/host_builtins.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool int_constant(const Expr& e, int64_t& out) {
  if (e.kind != ExprKind::Constant) return false;
  const auto& v = static_cast<const ConstantExpr&>(e).value;
  if (!v.is_int() || v.is_bool()) return false;
  out = v.as_int();
  return true;
}

bool contains_call(Block& b, const std::string& name) {
  bool found = false;
  for_each_expr(b, [&](ExprPtr& p) { found = found || (p && call_name(*p) == name); });
  return found;
}

// The power-of-two divisor V of `x // V` in a loop's range, 0 when there is none.
int64_t range_divisor(Expr& iter) {
  int64_t v = 0;
  walk(iter, [&](Expr& e) {
    if (e.kind != ExprKind::BinOp || static_cast<BinOpExpr&>(e).op != BinOp::FloorDiv) return;
    int64_t c;
    // 128 is the partition count far more often than a free size: leave it alone.
    if (int_constant(*static_cast<BinOpExpr&>(e).right, c) && power_of_two(c) && c >= 256) v = c;
  });
  return v;
}

// Integers written literally in a shape tuple given to a call (`nl.zeros((128, 512), ...)`): a size
// variable whose value is also spelled there (the copies jam_rows prints carry literal shapes while
// the loop keeps `NB`) cannot change alone.
std::set<int64_t> literal_shape_sizes(Block& kernel) {
  std::set<int64_t> out;
  auto collect = [&](Expr* e) {
    if (!e || e->kind != ExprKind::Tuple) return;
    for (auto& x : static_cast<SequenceExpr&>(*e).elts) {
      int64_t c;
      if (x && int_constant(*x, c)) out.insert(c);
    }
  };
  for_each_expr(kernel, [&](ExprPtr& p) {
    if (!p || p->kind != ExprKind::Call) return;
    auto& call = static_cast<CallExpr&>(*p);
    for (auto& a : call.args) collect(a.get());
    for (auto& kw : call.keywords) collect(kw.value.get());
  });
  return out;
}

class FreeSize : public MatchingTransform {
 public:
  std::string name() const override { return "free_size"; }
  std::string description() const override {
    return "change a tile's free size: larger tiles mean fewer, larger DMAs and instructions (less fixed "
           "overhead); smaller ones fit on chip";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    std::set<std::string> range_names;
    for_each_block(kernel, [&](Block& b) {
      for (auto& s : b)
        if (s->kind == StmtKind::For) range_names.merge(names_in(*static_cast<ForStmt&>(*s).iter));
    });
    const std::set<int64_t> literal_sizes = literal_shape_sizes(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (auto& s : b)
        if (variable_site(*s, range_names, literal_sizes, sink) || loop_site(*s, sink)) return true;
      return false;
    });
  }

 private:
  static std::vector<int64_t> choices(int64_t v, bool matmul) {
    std::vector<int64_t> out;
    if (v * 2 <= 8192 && (!matmul || v * 2 <= 512)) out.push_back(v * 2);
    if (v / 2 >= 128) out.push_back(v / 2);
    return out;
  }

  // `block = 1024` where `block` sizes a loop range.
  static bool variable_site(Stmt& s, const std::set<std::string>& range_names, const std::set<int64_t>& literal_sizes,
                            const SiteSink& sink) {
    std::string var = assigned_name(s);
    int64_t v;
    if (var.empty() || !range_names.count(var) || !int_constant(*assigned_value(s), v) || !power_of_two(v) || v < 2)
      return false;
    if (literal_sizes.count(v)) return false;  // the same size also spelled as a literal shape
    std::vector<int64_t> options = v >= 128 ? choices(v, false) : std::vector<int64_t>{v * 2, v / 2};
    for (int64_t nv : options) {
      Site site = make_site(s, fmt::format("set the tile free size `{}` from {} to {}", var, v, nv),
                            {{"var", var}, {"from", std::to_string(v)}, {"value", std::to_string(nv)}});
      if (sink(std::move(site), [&s, nv] { static_cast<AssignStmt&>(s).value = parse_expr(std::to_string(nv)); }))
        return true;
    }
    return false;
  }

  // `for h in nl.affine_range(block // 512)`: every literal 512 of the loop becomes the new size.
  static bool loop_site(Stmt& s, const SiteSink& sink) {
    if (s.kind != StmtKind::For) return false;
    auto& loop = static_cast<ForStmt&>(s);
    int64_t v = range_divisor(*loop.iter);
    if (v == 0) return false;
    bool matmul = contains_call(loop.body, "nisa.nc_matmul") || contains_call(loop.body, "nl.matmul");
    for (int64_t nv : choices(v, matmul)) {
      Site site = make_site(s, fmt::format("process {} columns per iteration of `{}` instead of {}", nv, brief(loop), v),
                            {{"from", std::to_string(v)}, {"value", std::to_string(nv)}});
      if (sink(std::move(site), [&loop, v, nv] { replace_int(loop, v, nv); })) return true;
    }
    return false;
  }

  static void replace_int(ForStmt& loop, int64_t from, int64_t to) {
    for_each_expr(loop, [&](ExprPtr& p) {
      int64_t c;
      if (p && int_constant(*p, c) && c == from) p = parse_expr(std::to_string(to));
    });
  }

};

const char* const kEngines[] = {"vector", "scalar", "gpsimd"};
const char* const kTwoTensorEngines[] = {"vector", "gpsimd"};  // the Scalar Engine has no two-tensor ALU

std::set<std::string> psum_names(Block& kernel);

class EngineMove : public MatchingTransform {
 public:
  std::string name() const override { return "engine_move"; }
  std::string description() const override {
    return "run an elementwise instruction on another engine (Vector, Scalar or GpSimd) to balance their load";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    const std::set<std::string> psum = psum_names(kernel);
    const std::set<std::string> host = host_value_names(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (auto& s : b) {
        // `acc += nisa.tensor_tensor(...)`: the product runs on any engine, the accumulation stays.
        if (s->kind == StmtKind::AugAssign && isa_tensor_tensor_site(*s, static_cast<AugAssignStmt&>(*s).value, sink, psum))
          return true;
        if (s->kind != StmtKind::Assign) continue;
        auto& assign = static_cast<AssignStmt&>(*s);
        if (tensor_scalar_site(*s, assign.value, sink, psum) || tensor_tensor_site(*s, assign.value, sink, psum, host) ||
            isa_tensor_tensor_site(*s, assign.value, sink, psum))
          return true;
      }
      return false;
    });
  }

 private:
  // The GpSimd engine cannot read or write PSUM tiles (`psum`: the kernel's PSUM names). In
  // `acc += op(...)` only the op moves (the accumulation stays where it is), so only it counts.
  static bool allowed(Stmt& s, const char* engine, const std::set<std::string>& psum) {
    if (std::string(engine) != "gpsimd") return true;
    auto names = s.kind == StmtKind::AugAssign ? names_in(*static_cast<AugAssignStmt&>(s).value) : names_in(s);
    for (const auto& name : names)
      if (psum.count(name)) return false;
    return true;
  }

  static std::string current_engine(CallExpr& call) {
    auto* e = argument(call, "engine");
    if (!e) return "";
    std::string t = text(**e);
    for (const char* name : kEngines)
      if (t == fmt::format("nisa.{}_engine", name)) return name;
    return "";
  }

  // A call of `callee` that already takes `engine=`: one site per other engine in `engines`.
  static bool engine_keyword_sites(Stmt& s, ExprPtr& value, const SiteSink& sink, const std::set<std::string>& psum,
                                   const char* callee, std::span<const char* const> engines) {
    auto* call = as_call(value.get(), callee);
    if (!call) return false;
    std::string now = current_engine(*call);
    for (const char* engine : engines) {
      if (now == engine || !allowed(s, engine, psum)) continue;
      Site site = make_site(s, fmt::format("run `{}` on the {} engine", brief(s), engine), {{"engine", engine}});
      if (sink(std::move(site), [call, engine] {
            set_keyword(*call, "engine", parse_expr(fmt::format("nisa.{}_engine", engine)));
          }))
        return true;
    }
    return false;
  }

  static bool tensor_scalar_site(Stmt& s, ExprPtr& value, const SiteSink& sink, const std::set<std::string>& psum) {
    return engine_keyword_sites(s, value, sink, psum, "nisa.tensor_scalar", kEngines);
  }

  // An explicit nisa.tensor_tensor.
  static bool isa_tensor_tensor_site(Stmt& s, ExprPtr& value, const SiteSink& sink, const std::set<std::string>& psum) {
    return engine_keyword_sites(s, value, sink, psum, "nisa.tensor_tensor", kTwoTensorEngines);
  }

  // Names the kernel binds to host values -- a list, tuple or dict display or comprehension, a
  // number (`coeffs = [... for k in range(7)]`): `coeffs[k]` is a Python float, not a tile.
  static std::set<std::string> host_value_names(Block& kernel) {
    std::set<std::string> out;
    for_each_block(kernel, [&](Block& b) {
      for (auto& s : b) {
        std::string name = assigned_name(*s);
        Expr* v = name.empty() ? nullptr : assigned_value(*s);
        if (!v) continue;
        switch (v->kind) {
          case ExprKind::Constant: case ExprKind::List: case ExprKind::Tuple: case ExprKind::Dict:
          case ExprKind::ListComp: case ExprKind::DictComp: out.insert(name); break;
          default: break;
        }
      }
    });
    return out;
  }

  // Whether `e` is a number or an item of a host value: no operand of a two-tile instruction.
  static bool host_operand(Expr& e, const std::set<std::string>& host) {
    double c;
    if (constant_value(e, c)) return true;
    Expr* base = &e;
    while (base->kind == ExprKind::Subscript) base = static_cast<SubscriptExpr&>(*base).value.get();
    return base->kind == ExprKind::Name && host.count(static_cast<NameExpr&>(*base).id);
  }

  // nl.multiply/add/subtract(a, b) of two tiles -> nisa.tensor_tensor(..., engine=...).
  static bool tensor_tensor_site(Stmt& s, ExprPtr& value, const SiteSink& sink, const std::set<std::string>& psum,
                                 const std::set<std::string>& host) {
    for (const char* op : {"multiply", "add", "subtract"}) {
      auto* call = as_call(value.get(), std::string("nl.") + op);
      if (!call || call->args.size() != 2 || !call->keywords.empty()) continue;
      if (host_operand(*call->args[0], host) || host_operand(*call->args[1], host)) continue;
      for (const char* engine : kTwoTensorEngines) {
        if (!allowed(s, engine, psum)) continue;
        std::string repl = fmt::format("nisa.tensor_tensor(data1={}, data2={}, op=nl.{}, engine=nisa.{}_engine)",
                                       text(*call->args[0]), text(*call->args[1]), op, engine);
        Site site = make_site(s, fmt::format("run `{}` as a tensor_tensor on the {} engine", brief(s), engine),
                              {{"engine", engine}});
        if (sink(std::move(site), [&value, repl] { value = parse_expr(repl); })) return true;
      }
    }
    return false;
  }
};

// Names bound to PSUM tiles in the kernel: matmul results and nl.zeros/ndarray(buffer=nl.psum); and,
// as they may be, results of the module's own functions (`up = project(x_t, w)` returning a PSUM
// accumulator: a researcher's swiglu, where a gpsimd engine_move failed twice), which this walk of
// the kernel's body cannot look into.
std::set<std::string> psum_names(Block& kernel) {
  std::set<std::string> out;
  for_each_block(kernel, [&](Block& b) {
    for (auto& s : b) {
      std::string t = assigned_name(*s);
      if (t.empty()) continue;
      Expr* v = assigned_value(*s);
      std::string callee = call_name(*v);
      if (callee == "nisa.nc_matmul" || callee == "nl.matmul") out.insert(t);
      if (v->kind == ExprKind::Call) {
        const Expr& f = *static_cast<CallExpr*>(v)->func;
        if (f.kind == ExprKind::Name && !loopnest::is_host_builtin(static_cast<const NameExpr&>(f).id)) out.insert(t);
      }
      if (callee == "nl.zeros" || callee == "nl.ndarray") {
        auto* buf = argument(*static_cast<CallExpr*>(v), "buffer");
        if (buf && text(**buf) == "nl.psum") out.insert(t);
      }
    }
  });
  return out;
}

class DropPsumCopy : public MatchingTransform {
 public:
  std::string name() const override { return "drop_psum_copy"; }
  std::string description() const override {
    return "let an elementwise consumer read a PSUM tile directly instead of copying it to SBUF first";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    std::set<std::string> psum = psum_names(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string t = assigned_name(*b[i]);
        CallExpr* copy = as_call(assigned_value(*b[i]), "nl.copy");
        if (!copy) copy = as_call(assigned_value(*b[i]), "nisa.tensor_copy");
        if (t.empty() || !copy || copy->args.empty() || copy->args[0]->kind != ExprKind::Name) continue;
        std::string src = text(*copy->args[0]);
        if (!psum.count(src) || count_uses(kernel, t) != 2) continue;
        size_t j = next_use(b, i, t);
        if (j == b.size() || !elementwise_consumer(*b[j], t)) continue;
        Site site = make_site(*b[i], fmt::format("read PSUM tile `{}` directly instead of copying it to `{}`", src, t));
        if (sink(std::move(site), [&b, i, j, t, src] {
              substitute(*b[j], t, *parse_expr(src));
              erase_stmt(b, i);
            }))
          return true;
      }
      return false;
    });
  }

 private:
  static bool elementwise_consumer(Stmt& s, const std::string& t) {
    if (s.kind != StmtKind::Assign) return false;
    std::string callee = call_name(*static_cast<AssignStmt&>(s).value);
    for (const char* ok : {"nl.multiply", "nl.add", "nl.subtract", "nisa.tensor_tensor", "nisa.tensor_scalar",
                           "nisa.activation", "nl.exp"})
      if (callee == ok) return true;
    return false;
  }
};

class TransposeChoice : public MatchingTransform {
 public:
  std::string name() const override { return "transpose_choice"; }
  std::string description() const override {
    return "choose the transpose unit: a Tensor Engine transpose (nc_transpose) or a DMA transpose on load";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::Assign) continue;
        ExprPtr& value = static_cast<AssignStmt&>(*b[i]).value;
        if (identity_matmul(*b[i], value, sink) || dma_transpose(kernel, b, i, sink)) return true;
      }
      return false;
    });
  }

 private:
  // nc_matmul(x, identity, is_moving_onezero=True, is_transpose=True) -> nc_transpose(x).
  static bool identity_matmul(Stmt& s, ExprPtr& value, const SiteSink& sink) {
    auto* mm = as_call(value.get(), "nisa.nc_matmul");
    if (!mm || mm->args.empty()) return false;
    auto* tr = argument(*mm, "is_transpose");
    if (!tr || text(**tr) != "True") return false;
    std::string repl = fmt::format("nisa.nc_transpose({})", text(*mm->args[0]));
    Site site = make_site(s, fmt::format("transpose with `{}` on the Tensor Engine instead of a matmul by the identity",
                                         repl), {{"unit", "pe"}});
    return sink(std::move(site), [&value, repl] { value = parse_expr(repl); });
  }

  // x = nl.load(src); t = nisa.nc_transpose(x)  ->  t = nl.load_transpose2d(src).
  static bool dma_transpose(Block& kernel, Block& b, size_t i, const SiteSink& sink) {
    std::string x = assigned_name(*b[i]);
    auto* load = as_call(assigned_value(*b[i]), "nl.load");
    if (x.empty() || !load || load->args.size() != 1 || !load->keywords.empty() || count_uses(kernel, x) != 2)
      return false;
    size_t j = next_use(b, i, x);
    if (j == b.size()) return false;
    auto* tr = as_call(assigned_value(*b[j]), "nisa.nc_transpose");
    if (!tr || tr->args.size() != 1 || !is_name(*tr->args[0], x) || !tr->keywords.empty()) return false;
    std::string repl = fmt::format("nl.load_transpose2d({})", text(*load->args[0]));
    Site site = make_site(*b[i], fmt::format("load `{}` already transposed by DMA ({})", x, repl), {{"unit", "dma"}});
    return sink(std::move(site), [&b, i, j, repl] {
      static_cast<AssignStmt&>(*b[j]).value = parse_expr(repl);
      erase_stmt(b, i);
    });
  }
};

}  // namespace

std::unique_ptr<Transform> make_free_size() { return std::make_unique<FreeSize>(); }
std::unique_ptr<Transform> make_engine_move() { return std::make_unique<EngineMove>(); }
std::unique_ptr<Transform> make_drop_psum_copy() { return std::make_unique<DropPsumCopy>(); }
std::unique_ptr<Transform> make_transpose_choice() { return std::make_unique<TransposeChoice>(); }

}  // namespace agents::builtin
