// The lifter's calls: Python builtins and numpy helpers on constants, loop ranges, index grids,
// and every NKI API as a tile operation (api.h) with its result's shape.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/core.h>

#include "loopnest/alu_engine.h"
#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/lifter.h"
#include "loopnest/live_mask.h"
#include "tensor/dtype.h"
#include "nki/ast_printer.h"
#include "nki/lib/isa_positional.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

Engine engine_named(const std::string& symbol) {
  std::string e = symbol.substr(symbol.find(':') + 1);
  if (e == "vector") return Engine::Vector;
  if (e == "scalar" || e == "activation") return Engine::Scalar;
  if (e == "gpsimd" || e == "pool") return Engine::GpSimd;
  if (e == "tensor" || e == "pe") return Engine::Tensor;
  if (e == "dma") return Engine::Dma;
  return Engine::None;
}

}  // namespace

// An integer, condition or index grid (or a tuple / list holding one) using a loop variable other
// than the program ids of an SPMD launch (which no transformation moves: those stay text).
bool Lifter::depends_on_loops(const AValue& v) const {
  std::vector<int> vars;
  switch (v.k) {
    case K::Int: vars = v.i.vars(); break;
    case K::Cond: vars = v.cl.vars(); for (int x : v.cr.vars()) vars.push_back(x); break;
    case K::Grid:
      vars = v.grid.base.vars();
      for (const auto& [pos, axis] : v.grid.axes)
        for (int x : axis.size.vars()) vars.push_back(x);
      break;
    case K::Tile:
      for (const auto& d : v.access.dims) {
        for (int x : d.start.vars()) vars.push_back(x);
        for (const auto& t : d.terms)
          for (int x : t.size.vars()) vars.push_back(x);
      }
      break;
    case K::Tuple: case K::List:
      return std::any_of(v.items.begin(), v.items.end(), [&](const AValue& x) { return depends_on_loops(x); });
    default: break;
  }
  for (int x : vars)
    if (std::find(program_loops.begin(), program_loops.end(), x) == program_loops.end()) return true;
  return false;
}

Operand to_operand(Lifter& L, const AValue& v, const Expr* origin) {
  Operand o;
  o.origin = origin;
  switch (v.k) {
    case K::Tile:
      if (v.gather && origin)  // Lifter::apply takes a gather's source; anywhere else it has no form
        L.fail(origin->span, fmt::format("'{}': an indirect (index-tile) access, whose rows are read from a tile at "
                                         "run time, as an operand (the form lifts one only as a load's source)",
                                         print_expr(*origin)));
      o.kind = Operand::Kind::Tile;
      o.access = v.access;
      if (v.instead) {
        const AValue& n = *v.instead;
        o.number = n.k == K::Int ? static_cast<double>(n.i.constant()) : n.f;
        o.integer = n.k == K::Int;
        o.number_type = n.type;
        Ranges rg = L.ranges();
        o.number_when = IExpr::select(v.cl, v.cmp, v.cr, IExpr(1), IExpr(0), &rg);
        // A condition the loop bounds decide: the one value it always takes.
        if (o.number_when->is_constant()) {
          if (o.number_when->constant()) o.kind = Operand::Kind::Number;
          o.number_when.reset();
        }
      }
      break;
    case K::Int:
      if (v.i.is_constant()) {
        o.kind = Operand::Kind::Number;
        o.number = static_cast<double>(v.i.constant());
        o.integer = true;
      } else if (L.depends_on_loops(v)) {
        o.kind = Operand::Kind::Index;
        o.index = v.i;
        o.number_type = v.type;  // "float": `float(r)`, printed as such
      } else {
        o.kind = Operand::Kind::Other;
        // `float(pid)`: printed as written (the loop variables of an SPMD launch have no names).
        o.text = origin ? print_expr(*origin) : L.k.str(v.i);
      }
      break;
    case K::Cond:  // `accumulate=k > 0`: the condition as an integer 1 / 0, printed as the comparison
      if (L.depends_on_loops(v)) {
        Ranges rg = L.ranges();
        o.kind = Operand::Kind::Index;
        o.index = IExpr::select(v.cl, v.cmp, v.cr, IExpr(1), IExpr(0), &rg);
        o.number_type = "bool";
        break;
      }
      o.kind = Operand::Kind::Other;
      o.text = origin ? print_expr(*origin) : "?";
      break;
    case K::Grid:
      if (L.depends_on_loops(v)) {
        o.kind = Operand::Kind::Grid;
        o.grid.start = v.grid.base;
        for (const auto& [pos, axis] : v.grid.axes)
          o.grid.terms.push_back({pos, axis.size, axis.coef, axis.div, axis.mod});
        o.grid_rank = std::max(v.grid.ndim, 1);
        break;
      }
      o.kind = Operand::Kind::Other;
      o.text = origin ? print_expr(*origin) : "?";
      break;
    case K::Float:
      if (v.type == "program") {  // a float expression of program ids: printed as written
        if (!origin) L.fail(Span{}, "a float expression of program ids without its source");
        o.kind = Operand::Kind::Other;
        o.text = print_expr(*origin);
        break;
      }
      o.kind = Operand::Kind::Number; o.number = v.f; o.number_type = v.type; break;
    case K::Bool: o.kind = Operand::Kind::Symbol; o.symbol = v.b ? "True" : "False"; break;
    case K::None: o.kind = Operand::Kind::None; break;
    case K::Func: o.kind = Operand::Kind::Symbol; o.symbol = operator_symbol(short_api(v.s)); break;
    case K::Symbol: o.kind = Operand::Kind::Symbol; o.symbol = v.s; break;
    case K::DType: o.kind = Operand::Kind::Symbol; o.symbol = "dtype:" + v.s; break;
    case K::Tuple: case K::List: {
      bool ints = std::all_of(v.items.begin(), v.items.end(), [](const AValue& x) { return x.k == K::Int || x.k == K::ParDim; });
      if (ints) {
        o.kind = Operand::Kind::Shape;
        for (auto& x : v.items) o.shape.push_back(x.i);
        break;
      }
      [[fallthrough]];
    }
    default:
      // Kept as its source text, which a transformation of a loop it reads could not rewrite.
      if (L.depends_on_loops(v))
        L.fail(origin ? origin->span : Span{}, fmt::format("the operand '{}', which depends on a loop variable inside a "
                                                    "value the form keeps as text (a tuple or list)",
                                                    origin ? print_expr(*origin) : "?"));
      o.kind = Operand::Kind::Other;
      o.text = origin ? print_expr(*origin) : "?";
  }
  return o;
}

namespace {

std::vector<IExpr> broadcast(const std::vector<std::vector<IExpr>>& shapes) {
  size_t n = 0;
  for (auto& s : shapes) n = std::max(n, s.size());
  std::vector<IExpr> out(n, IExpr(1));
  for (auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      IExpr& o = out[n - s.size() + i];
      if (o.is_constant() && o.constant() == 1) o = s[i];
    }
  return out;
}

}  // namespace


// The dtype an nl.* binary elementwise op gives without dtype=, as the language core computes it
// (language_ops.cpp): the NKI promotion of its operands, a Python float counting as float32 and a
// Python int as int32 (a bf16 tile times 0.5 is float32). "" for other operations.
std::string Lifter::binary_result_dtype(const std::string& api, const Op& op) const {
  if (api.rfind("nl.", 0) != 0) return "";
  const Operand *x = nullptr, *y = nullptr;
  for (const auto& a : op.args) {
    if (a.name == "x") x = &a.value;
    if (a.name == "y") y = &a.value;
  }
  if (!x || !y) return "";
  auto dtype_of = [&](const Operand& o) -> std::optional<tensor::DType> {
    if (o.kind == Operand::Kind::Tile) return tensor::parse_dtype(k.tensor(o.access.tensor).dtype);
    if (o.kind == Operand::Kind::Number) {
      if (!o.number_type.empty()) return tensor::parse_dtype(o.number_type);
      return o.integer ? tensor::DType::Int32 : tensor::DType::Float32;
    }
    return std::nullopt;
  };
  if (x->kind != Operand::Kind::Tile && y->kind != Operand::Kind::Tile) return "";
  // Comparisons and logical operators give bool (language_ops.cpp is_predicate_op): a 0/1 tile
  // that a move writing a float result over it (in_place) or reading it as float must not mistake.
  static const std::set<std::string> predicates = {"nl.equal", "nl.not_equal", "nl.greater", "nl.greater_equal",
                                                   "nl.less", "nl.less_equal", "nl.logical_and", "nl.logical_or",
                                                   "nl.logical_xor"};
  if (predicates.count(api)) return std::string(tensor::name(tensor::DType::Bool));
  auto a = dtype_of(*x), b = dtype_of(*y);
  if (!a || !b) return "";
  return std::string(tensor::name(tensor::nki_promote(*a, *b)));
}

namespace {

// `nisa.activation(op=nl.copy, data=x)` with nothing else but its dst, mask or dtype: the identity
// activation is a copy, on the Scalar Engine (the newer API's only ScalarE copy on NeuronCore-v2,
// nki-language.md 12.2). The form holds it as the copy it is (every move that knows copies sees it)
// and prints it back as the author's activation (Emitter::call, origin_api "nisa.activation").
bool identity_copy_activation(const std::string& api, const std::vector<std::pair<std::string, AValue>>& args) {
  if (api != "nisa.activation") return false;
  bool copy = false, data = false;
  for (const auto& [name, v] : args) {
    if (name == "op") copy = v.k == K::Func && operator_symbol(short_api(v.s)) == "copy";
    else if (name == "data") data = v.k == K::Tile && !v.gather;
    else if (name != "dst" && name != "mask" && name != "dtype") return false;
  }
  return copy && data;
}

// Whether a matmul's `accumulate=` flag is false in exactly the first iteration of the loops around
// it and true after (`t > 0`, `t != 0`, `0 < t`, `t >= 1`; `2 * t_blk + t_in > 0` once a move blocked
// the loop), its destination declared outside those loops and the same region in all of them: the
// first write overwrites and the later ones add, which is what `accumulate=None` does there
// (nki-language.md 12.3, "a PSUM location's initial matmul write replaces its contents and
// subsequent ones add"). The form then holds it as accumulating, as it holds the unflagged matmul,
// and its loop's iterations commute as PSUM accumulation (held-out author61's P @ V loop was no
// pipeline_prep site: its matmul was taken for one overwriting the tile every iteration). Every loop
// around the matmul inside the destination's scope that the destination does not index must be one
// the condition counts (else its iterations at the first one would overwrite each other).
bool first_iteration_overwrites(const Kernel& k, const std::vector<int>& loop_stack, const AValue& acc,
                                const Access& dst) {
  if (acc.k != K::Cond) return false;
  const int declared_in = k.tensor(dst.tensor).scope_loop;
  auto scope = loop_stack.begin();
  if (declared_in >= 0) {
    scope = std::find(loop_stack.begin(), loop_stack.end(), declared_in);
    if (scope == loop_stack.end()) return false;
    ++scope;
  }
  std::map<int, int64_t> at_start;
  std::set<int> repeated;  // loops whose every iteration writes the same region
  for (auto it = scope; it != loop_stack.end(); ++it) {
    const Loop& l = k.loops.at(*it);
    if (uses_loop(dst, *it)) continue;
    if (l.step <= 0 || !l.start.is_constant()) return false;
    at_start[*it] = l.start.constant();
    repeated.insert(*it);
  }
  if (repeated.empty()) return false;
  // `d > 0` with d affine, increasing in each of those loops and 0 when all are at their start.
  auto after_first = [&](const IExpr& d) {
    if (!d.is_affine()) return false;
    for (int v : d.vars())
      if (!repeated.count(v)) return false;
    for (int id : repeated)
      if (d.coeff(id) <= 0) return false;
    auto first = d.eval(at_start);
    return first && *first == 0;
  };
  switch (acc.cmp) {
    case Cmp::Gt: return after_first(acc.cl - acc.cr);
    case Cmp::Ge: return after_first(acc.cl - acc.cr + 1);
    case Cmp::Lt: return after_first(acc.cr - acc.cl);
    case Cmp::Le: return after_first(acc.cr - acc.cl + 1);
    case Cmp::Ne: return after_first(acc.cl - acc.cr) || after_first(acc.cr - acc.cl);
    case Cmp::Eq: return false;
  }
  return false;
}

// A newer-API DMA between accesses of different shapes and equal element counts (nki-language.md
// 12.2: "element counts must match") pairs the elements in row-major order, as the interpreter runs
// it (isa_engines.cpp, row_major_pair). The form's DMA moves one tile shape on both sides, so the
// side the interpreter regroups (src, or the HBM dst of a store from chip) is flattened run by run
// into the other's dims, each run of its dims into the one dim their sizes multiply to: the form
// then holds a DMA of matched shapes (a run whose strides do not chain becomes a quasi-affine axis).
// Any other pairing is refused by name, never lifted with the dims taken one for one.
void pair_dma_sides(Lifter& L, std::vector<std::pair<std::string, AValue>>& args, const nki::CallExpr& c) {
  AValue *dst = nullptr, *src = nullptr;
  for (auto& [name, v] : args) {
    if (name == "dst" && v.k == K::Tile && !v.gather) dst = &v;
    if (name == "src" && v.k == K::Tile && !v.gather) src = &v;
  }
  if (!dst || !src) return;
  std::vector<IExpr> ds = dst->access.tile_shape(), ss = src->access.tile_shape();
  if (ds == ss) return;
  auto sizes = [&](const std::vector<IExpr>& shape) {
    std::vector<int64_t> out;
    for (const IExpr& e : shape) {
      if (!e.is_constant()) L.fail(c.span, fmt::format("'{}': a DMA between tiles of different, loop-dependent shapes", print_expr(c)));
      out.push_back(e.constant());
    }
    return out;
  };
  std::vector<int64_t> dn = sizes(ds), sn = sizes(ss);
  bool into_src_shape = !L.k.tensor(dst->access.tensor).on_chip() && L.k.tensor(src->access.tensor).on_chip();
  AValue& side = into_src_shape ? *dst : *src;
  const std::vector<int64_t>& from = into_src_shape ? dn : sn;
  const std::vector<int64_t>& to = into_src_shape ? sn : dn;
  // Runs of `from` dims, one per `to` dim: [first, last] each (size-1 dims join a run).
  std::vector<std::pair<int, int>> runs;
  size_t i = 0;
  bool ok = true;
  for (size_t j = 0; ok && j < to.size(); ++j) {
    int first = int(i);
    int64_t product = 1;
    if (to[j] == 1) ok = i < from.size() && from[i++] == 1;
    while (i < from.size() && product < to[j]) product *= from[i++];
    ok = ok && product == to[j];
    runs.push_back({first, int(i) - 1});
  }
  while (ok && !runs.empty() && i < from.size() && from[i] == 1) runs.back().second = int(i++);
  if (!ok || i != from.size())
    L.fail(c.span, fmt::format("'{}': a DMA whose {} dims {} do not flatten, run by run, into the {} dims {} (the "
                               "elements pair in row-major order across dims)", print_expr(c),
                               into_src_shape ? "dst" : "src", tensor::shape_str(from), into_src_shape ? "src" : "dst",
                               tensor::shape_str(to)));
  for (size_t j = runs.size(); j-- > 0;)
    if (runs[j].second > runs[j].first)
      side = L.view_method(side, "flatten_dims", {AValue::of_int(runs[j].first), AValue::of_int(runs[j].second)}, {}, c);
  // The terms in axis order, as the printed subscript lifts back (the form round-trips).
  for (auto& d : side.access.dims)
    std::stable_sort(d.terms.begin(), d.terms.end(), [](const AxisTerm& a, const AxisTerm& b) { return a.axis < b.axis; });
}

}  // namespace

AValue Lifter::apply(const std::string& api_called, std::vector<std::pair<std::string, AValue>> args,
                     std::vector<std::pair<std::string, const Expr*>> origins, const Expr& at, const CallExpr* origin) {
  const bool copy_activation = identity_copy_activation(api_called, args);
  const std::string api = copy_activation ? "nisa.tensor_copy" : api_called;
  if (copy_activation) {
    std::erase_if(args, [](const auto& a) { return a.first == "op"; });
    std::erase_if(origins, [](const auto& a) { return a.first == "op"; });
    for (auto& a : args) a.first = a.first == "data" ? "src" : a.first;
    for (auto& o : origins) o.first = o.first == "data" ? "src" : o.first;
  }
  const ApiSpec* spec = find_api(api);
  if (!spec) fail(at.span, fmt::format("the call of '{}' (an API the loop-nest form does not know)", api));
  auto origin_of = [&](const std::string& name) -> const Expr* {
    for (auto& [n, e] : origins)
      if (n == name) return e;
    return nullptr;
  };
  auto value_of = [&](const std::string& name) -> const AValue* {
    for (auto& [n, v] : args)
      if (n == name) return &v;
    return nullptr;
  };
  // None where the call reads a tile (an item of a list of None no binding reached, after a fill
  // that unrolled: `nl.add(t, buf[3])`) is Python's TypeError at this call, which the interpreter
  // raises ("y of nl.add must be a tile or a scalar, got NoneType"): typed so, as the kernel's own
  // error, never printed as `y=None`. The operands the result's shape comes from, and the data a
  // store or a DMA copy moves.
  for (const auto& [name, v] : args) {
    bool data = std::find(spec->shape_from.begin(), spec->shape_from.end(), name) != spec->shape_from.end() ||
                (spec->cls == OpClass::Store && name == "value") || (spec->cls == OpClass::DmaCopy && name == "src");
    if (!data || v.k != K::None) continue;
    const Expr* o = origin_of(name);
    Diagnostic d;
    d.kind = ErrorKind::Type;
    d.loc = loc_of(module->file, o ? o->span : at.span);
    d.message = fmt::format("cannot lift '{}': None as {} of {} (Python fails here: a tile is read there)",
                            o ? print_expr(*o) : print_expr(at), name, api);
    throw LiftError(std::move(d));
  }
  if (spec->cls == OpClass::DmaCopy && origin && k.dialect.new_api) pair_dma_sides(*this, args, *origin);
  Op op;
  op.api = api;
  op.cls = spec->cls;
  op.engine = spec->engine;
  op.origin = origin;
  op.origin_api = origin ? api : "";
  // Its engine stays the copy's (the API table's, as for nl.copy, whose PSUM evacuations the
  // simulator places on ScalarE too): the same nest in another style offers the same sites.
  if (copy_activation) op.origin_api = api_called;
  const AValue* dst = nullptr;
  AValue scatter_dst;  // a scatter's dst: the whole tensor (dst points here)
  for (auto& [name, v] : args) {
    if (name == "dst" && !v.gather) {
      dst = &v;
      continue;
    }
    if (name == "dst" && v.k == K::Tile && v.gather && (api == "nl.store" || api == "nisa.dma_copy")) {
      // A scatter (nki-language.md 7.1, nl.store: "the dst view can be an indirect (dynamic) row
      // scatter like nl.load"): the rows it writes are the index tile's values, so its dst is the
      // whole HBM tensor, a may-write (loopnest::scatters), and the index tile an operand it reads.
      // The statement is frozen (ops_node) and printed as written.
      scatter_dst = AValue::of_tile(whole(v.access.tensor));
      dst = &scatter_dst;
      op.args.push_back({kScatterIndex, to_operand(*this, *v.gather, nullptr), false, false});
      continue;
    }
    if (name == "mask" && v.k == K::Pred) op.mask = v.pred, op.has_mask = true;
    if (name == "mask" && (v.k == K::Bool || v.k == K::Cond)) {  // `mask=(k_0 * U + k_1 < S)`
      if (auto con = loop_mask_term(v)) op.mask = {*con}, op.has_mask = true;
    }
    if (name == "dtype" && v.k == K::DType) op.dtype = v.s;
    if (name == "engine" && v.k == K::Symbol) {
      Engine e = engine_named(v.s);
      if (e != Engine::None) op.engine = e, op.engine_explicit = true;
    }
    if (v.k == K::Tile && v.gather) {
      // A gather (an indirect DMA's source, `nl.load(x[idx, i_f])`): the rows it reads are the
      // index tile's values, known only at run time, so for the dependences it reads all of the
      // HBM tensor, and the index tile is an operand like any other. The statement is frozen
      // (ops_node): a move that would rewrite its access refuses it, as one on a random draw does.
      const Expr* o = origin_of(name);
      if (name != "src" || (api != "nl.load" && api != "nisa.dma_copy"))
        fail(o ? o->span : at.span,
             fmt::format("'{}': an indirect (index-tile) access as '{}' of {} (the form lifts one only as the "
                         "source of a load, a gather of rows, or the destination of a store, a scatter of rows)",
                         o ? print_expr(*o) : print_expr(at), name, api));
      Operand src = to_operand(*this, AValue::of_tile(whole(v.access.tensor)), o);
      op.args.push_back({name, std::move(src), positional_.count(name) > 0, false});
      op.args.push_back({kGatherIndex, to_operand(*this, *v.gather, nullptr), false, false});
      continue;
    }
    op.args.push_back({name, to_operand(*this, v, origin_of(name)), positional_.count(name) > 0,
                       is_output_param(*spec, name)});
  }
  // The shape a new value or tensor gets.
  auto tile_of = [&](const std::string& name) -> std::vector<IExpr> {
    const AValue* v = value_of(name);
    if (!v || v->k != K::Tile) fail(at.span, fmt::format("'{}' without a tile for '{}'", print_expr(at), name));
    return v->access.tile_shape();
  };
  auto shape_arg = [&](int* partition_dim) -> std::vector<IExpr> {
    const AValue* v = value_of("shape");
    if (!v) v = value_of("constant");
    if (!v && value_of("n")) {
      IExpr n = int_of(*value_of("n"), at);
      return {n, n};
    }
    if (v && v->k == K::HostArray) {
      std::vector<IExpr> s;
      for (auto& x : v->items) s.push_back(x.i);
      return s;
    }
    if (!v) fail(at.span, fmt::format("'{}' without a shape", print_expr(at)));
    return shape_of(*v, *origin_of(v == value_of("shape") ? "shape" : "constant"), partition_dim);
  };
  if (op.has_mask) drop_dead_constraints(op, dst && dst->k == K::Tile ? &dst->access : nullptr, ranges());
  if (!op.has_mask) {
    for (const auto& [name, v] : args) {
      if (v.k != K::Tile || v.gather) continue;  // a gather's rows are data: no bound to check here
      const Expr* o = origin_of(name);
      check_access(v.access, o ? *o : at);
    }
  }
  std::string dtype = op.dtype.empty() ? binary_result_dtype(api, op) : op.dtype;
  if (dtype.empty()) dtype = spec->result_dtype;
  // A selection's result holds its on-true tile's values, whatever comes first among its operands
  // (select_reduce's uint8 predicate): typed as the predicate, the select of usr_masked_row_argmax
  // looked bool to in_place (which wrote a comparison over it) and to engine_assign (which then
  // printed the comparison without dtype=, a float32 tile into a bitwise `&`).
  if (dtype.empty() && (api == "nisa.select_reduce" || api == "nisa.range_select" || api == "nisa.affine_select"))
    if (const AValue* v = value_of(spec->shape_from.front()); v && v->k == K::Tile) dtype = k.tensor(v->access.tensor).dtype;
  for (auto& a : op.args)
    if (dtype.empty() && a.value.kind == Operand::Kind::Tile) dtype = k.tensor(a.value.access.tensor).dtype;
  if (dtype.empty()) dtype = "float32";
  // The engine by the ISA table for the data it writes (a destination-first call without dtype=
  // writes its destination's dtype, as the interpreter runs it): an int32 add on GpSimd.
  if (!op.engine_explicit) {
    bool into_dst = dst && dst->k == K::Tile && op.dtype.empty();
    op.engine = default_engine(k, op, into_dst ? k.tensor(dst->access.tensor).dtype : dtype);
  }

  bool legacy_memset_value = api == "nisa.memset" && !dst;
  if (spec->creates || legacy_memset_value) {
    Tensor t;
    int pdim = -1;
    t.shape = spec->shape == ShapeRule::Like ? tile_of("a") : shape_arg(&pdim);
    t.partition_dim = pdim < 0 ? 0 : pdim;
    t.dtype = dtype;
    t.memory = Memory::Sbuf;
    t.role = TensorRole::Buffer;
    if (const AValue* b = value_of("buffer"); b && b->k != K::None) {
      // A buffer the lift does not know is refused, not taken for SBUF: an HBM output read as an
      // SBUF buffer gave chunk_rows a kernel storing the wrong columns.
      if (b->k != K::Symbol || b->s.rfind("buffer:", 0) != 0)
        fail(at.span, fmt::format("'{}': the buffer is none of nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, "
                                  "nl.private_hbm", print_expr(at)));
      if (b->s == "buffer:psum") t.memory = Memory::Psum;
      if (b->s == "buffer:shared_hbm") t.memory = Memory::Hbm, t.role = TensorRole::Output;
      if (b->s == "buffer:hbm" || b->s == "buffer:private_hbm") t.memory = Memory::Hbm, t.role = TensorRole::Scratch;
    }
    if (api == "nl.shared_constant" || api == "nl.shared_identity_matrix") t.memory = Memory::Hbm, t.role = TensorRole::Constant;
    if (legacy_memset_value) t.role = TensorRole::Value;
    if (const AValue* n = value_of("name"); n && n->k == K::Str) t.label = n->s;
    if (!t.on_chip()) t.partition_dim = -1;
    t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
    int id = new_tensor(std::move(t));
    op.dst = whole(id);
    if (legacy_memset_value) op.result = id;
    current_ops->push_back(std::move(op));
    return AValue::of_tile(whole(id));
  }
  if (dst) {
    if (dst->k != K::Tile) fail(at.span, fmt::format("'{}': dst is not a tensor", print_expr(at)));
    op.dst = dst->access;
    op.dst_origin = origin_of("dst");
    op.dst_first = true;
    // A matmul written without the flag accumulates, as does one whose flag is false in the first
    // iteration only (first_iteration_overwrites); a literal flag says it.
    if (const AValue* acc = value_of("accumulate"); acc && acc->k == K::Bool)
      op.accumulate = acc->b;
    else if (op.cls == OpClass::Matmul && (acc ? first_iteration_overwrites(k, loop_stack, *acc, dst->access) : origin != nullptr))
      op.accumulate = true;
    if (op.cls == OpClass::DmaCopy) {
      const AValue* src = value_of("src");
      bool src_chip = src && src->k == K::Tile && k.tensor(src->access.tensor).on_chip();
      bool dst_chip = k.tensor(dst->access.tensor).on_chip();
      if (!src_chip && dst_chip) op.cls = OpClass::Load;
      if (src_chip && !dst_chip) op.cls = OpClass::Store;
    }
    current_ops->push_back(std::move(op));
    return AValue::of_kind(K::None);
  }
  // Seeding the random-number generator writes no tile: its effect is the generator's state,
  // which the statement's place in the order keeps (an ordered effect, lift.cpp).
  // nl.device_print writes no tile either: a read of its tile, in its place among the statements.
  if (spec->shape == ShapeRule::None && (is_random(api) || api == "nl.device_print")) {
    current_ops->push_back(std::move(op));
    return AValue::of_kind(K::None);
  }
  if (spec->shape == ShapeRule::None) fail(at.span, fmt::format("'{}' without a destination", print_expr(at)));
  std::vector<IExpr> shape;
  switch (spec->shape) {
    case ShapeRule::Same: shape = tile_of(spec->shape_from[0]); break;
    case ShapeRule::Like: shape = tile_of(spec->shape_from[0]); break;
    case ShapeRule::Broadcast: {
      std::vector<std::vector<IExpr>> shapes;
      for (auto& n : spec->shape_from)
        if (const AValue* v = value_of(n); v && v->k == K::Tile) shapes.push_back(v->access.tile_shape());
      if (shapes.empty()) fail(at.span, fmt::format("'{}' without a tile operand", print_expr(at)));
      shape = broadcast(shapes);
      break;
    }
    case ShapeRule::Reduce: {
      shape = tile_of(spec->shape_from[0]);
      std::vector<int64_t> axes;
      if (const AValue* ax = value_of("axis")) {
        if (ax->k == K::Int) axes.push_back(ax->i.constant());
        for (auto& x : ax->items) axes.push_back(x.i.constant());
      }
      bool keep = false;
      if (const AValue* kd = value_of("keepdims"); kd && kd->k == K::Bool) keep = kd->b;
      for (auto& a : axes)
        if (a < 0) a += static_cast<int64_t>(shape.size());
      std::sort(axes.rbegin(), axes.rend());
      for (int64_t a : axes) {
        if (a < 0 || a >= static_cast<int64_t>(shape.size())) fail(at.span, "a reduction axis out of range");
        if (keep) shape[static_cast<size_t>(a)] = IExpr(1);
        else shape.erase(shape.begin() + a);
      }
      break;
    }
    case ShapeRule::Matmul: {
      auto s = tile_of("stationary"), m = tile_of("moving");
      if (s.size() != 2 || m.size() != 2) fail(at.span, "a matmul of operands that are not 2-D tiles");
      shape = {s[1], m[1]};
      break;
    }
    case ShapeRule::NlMatmul: {
      auto x = tile_of("x"), y = tile_of("y");
      bool tx = false;
      if (const AValue* t = value_of("transpose_x"); t && t->k == K::Bool) tx = t->b;
      if (x.size() != 2 || y.size() != 2) fail(at.span, "a matmul of operands that are not 2-D tiles");
      shape = {tx ? x[1] : x[0], y[1]};
      break;
    }
    case ShapeRule::Transpose: {
      auto x = tile_of(spec->shape_from[0]);
      if (x.size() != 2) fail(at.span, "a transpose of a tile that is not 2-D");
      shape = {x[1], x[0]};
      break;
    }
    case ShapeRule::ShapeArg: shape = shape_arg(nullptr); break;
    case ShapeRule::Stats: {
      auto x = tile_of(spec->shape_from[0]);
      if (x.size() < 2) fail(at.span, fmt::format("'{}' of a tile without a free dim", print_expr(at)));
      shape = {x[0], IExpr(spec->stats_free)};
      break;
    }
    case ShapeRule::Grid: {
      const AValue* g = value_of(spec->shape_from[0]);
      if (!g || g->k != K::Grid || g->grid.ndim == 0)
        fail(at.span, fmt::format("'{}' of something other than an index grid", print_expr(at)));
      shape.assign(static_cast<size_t>(g->grid.ndim), IExpr(1));
      for (const auto& [pos, axis] : g->grid.axes) shape[static_cast<size_t>(pos)] = axis.size;
      if (g->grid.dense.size() == shape.size()) shape = g->grid.dense;
      break;
    }
    case ShapeRule::Bounds: {
      auto x = tile_of(spec->shape_from[0]);
      if (x.size() != 2) fail(at.span, fmt::format("'{}' of a tile that is not 2-D", print_expr(at)));
      shape = {x[0], IExpr(2), x[1]};
      break;
    }
    case ShapeRule::Gather: {
      auto src = tile_of(spec->shape_from[0]), index = tile_of(spec->shape_from[1]);
      IExpr free = value_of("num_elem_per_idx") ? int_of(*value_of("num_elem_per_idx"), at) : IExpr(1);
      for (size_t d = 1; d < index.size(); ++d) {
        auto product = free.times(index[d]);
        if (!product) fail(at.span, fmt::format("'{}' of sizes that are not constant", print_expr(at)));
        free = *product;
      }
      shape = {src[0], free};
      break;
    }
    case ShapeRule::None: break;
  }
  Tensor t;
  t.role = TensorRole::Value;
  t.memory = (op.cls == OpClass::Matmul || (op.cls == OpClass::Transpose && op.engine == Engine::Tensor)) ? Memory::Psum
                                                                                                          : Memory::Sbuf;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
  int id = new_tensor(std::move(t));
  op.result = id;
  op.dst = whole(id);
  current_ops->push_back(std::move(op));
  return AValue::of_tile(whole(id));
}

// `t.ap(pattern=[[step, count], ...], offset=0)` (newer API): tile element (i0, i1, ...) is the
// element of the whole tensor at flat position offset + sum(step_k * i_k), row-major. As the
// language core does (nki_tensor.cpp, access_pattern_view), each flat step and the offset are split
// over the tensor's dims outermost first, giving every pattern axis a term on each dim it moves.
AValue Lifter::access_pattern(const AValue& self, const std::vector<AValue>& pos,
                              const std::vector<std::pair<std::string, AValue>>& kw, const CallExpr& c) {
  const AValue* pattern = pos.size() >= 1 ? &pos[0] : nullptr;
  const AValue* offset = pos.size() >= 2 ? &pos[1] : nullptr;
  for (const auto& [n, v] : kw) {
    if (n == "pattern") pattern = &v;
    else if (n == "offset") offset = &v;
    else if (n != "dtype") fail(c.span, fmt::format("the access pattern argument '{}'", n));
  }
  if (!whole_access(self.access)) fail(c.span, "an access pattern of a part of a tensor");
  const Tensor& t = k.tensor(self.access.tensor);
  if (t.on_chip() && t.partition_dim != 0) fail(c.span, "an access pattern of a tensor with block dims");
  size_t r = t.shape.size();
  std::vector<int64_t> strides(r, 1);
  for (size_t d = r; d-- > 0;) {
    if (!t.shape[d].is_constant()) fail(c.span, "an access pattern of a tensor whose shape is not constant");
    if (d + 1 < r) strides[d] = strides[d + 1] * t.shape[d + 1].constant();
  }
  if (!pattern || (pattern->k != K::List && pattern->k != K::Tuple) || pattern->items.empty())
    fail(c.span, "an access pattern that is not a list of [step, count] pairs");
  Access out;
  out.tensor = t.id;
  out.dims.assign(r, DimIndex{IExpr(0), {}});
  IExpr flat = offset ? int_of(*offset, c) : IExpr(0);
  Ranges rg = ranges();
  if (!flat.is_constant()) {
    auto b = flat.bounds(rg);
    if (!b || b->first < 0) fail(c.span, "an access pattern offset that may be negative");
  }
  for (size_t d = 0; d < r; ++d) {  // offsets split as floor divisions (the offset is never negative)
    IExpr q = IExpr::floordiv(flat, strides[d], &rg);
    out.dims[d].start = q;
    flat = flat - *q.times(IExpr(strides[d]));
  }
  out.rank = static_cast<int>(pattern->items.size());
  for (size_t a = 0; a < pattern->items.size(); ++a) {
    const AValue& pair = pattern->items[a];
    if ((pair.k != K::List && pair.k != K::Tuple) || pair.items.size() != 2)
      fail(c.span, "an access pattern entry that is not a [step, count] pair");
    IExpr step = int_of(pair.items[0], c), count = int_of(pair.items[1], c);
    if (!step.is_constant() || !count.is_constant()) fail(c.span, "an access pattern with loop-dependent steps");
    int64_t s = step.constant();
    bool any = false;
    for (size_t d = 0; d < r; ++d) {  // C++ division, as the language core splits a step
      int64_t q = s / strides[d];
      s -= q * strides[d];
      if (q == 0) continue;
      out.dims[d].terms.push_back({static_cast<int>(a), count, q});
      any = true;
    }
    if (!any) out.dims[r - 1].terms.push_back({static_cast<int>(a), count, 0});  // a step of 0 repeats
  }
  return AValue::of_tile(std::move(out));
}

bool Lifter::varies_per_iteration(const Expr& fstring) {
  for (const auto& part : static_cast<const FStringExpr&>(fstring).parts)
    if (part.expr && depends_on_loops(eval(*part.expr))) return true;
  return false;
}

namespace {

bool device_print_call(const AValue& f) {
  static const std::string suffix = ".device_print";
  return f.k == K::Func && f.s.size() > suffix.size() && f.s.compare(f.s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An f-string's text with its fields as written: `f"tile {i} max"` -> "tile {i} max".
std::string fstring_template(const FStringExpr& e) {
  std::string out;
  for (const auto& part : e.parts) out += part.literal + (part.expr ? "{" + part.expr_text + "}" : "");
  return out;
}

}  // namespace

AValue Lifter::call(const CallExpr& c) {
  AValue f = eval(*c.func);
  // A call with a mask: its operands may reach past a dim where the mask leaves them out (a ragged
  // last row block `x[nl.ds(i * 128, 128), c]` under `mask=(i * 128 + p < M)`, nki-language.md 3.9:
  // bounds checking applies only to unmasked elements). Their slices are not refused while they are
  // read; the masked operation is not bounds-checked as a whole (check_access).
  const bool masked = std::any_of(c.keywords.begin(), c.keywords.end(), [](const Keyword& k) {
    return k.name == "mask" && k.value &&
           !(k.value->kind == ExprKind::Constant && static_cast<const ConstantExpr&>(*k.value).value.is_none());
  });
  struct Guard {
    int& n;
    bool on;
    ~Guard() { n -= on ? 1 : 0; }
  } guard{guarded, masked};
  guarded += masked ? 1 : 0;
  std::vector<AValue> pos;
  std::vector<const Expr*> pos_exprs;
  for (auto& a : c.args) {
    if (a->kind == ExprKind::Starred) {  // `f(t, *factors)`: the items of a host sequence
      const Expr& inner = *static_cast<const StarredExpr&>(*a).value;
      auto items = host_items(eval(inner));
      if (!items) fail(a->span, fmt::format("'{}' of a value that is not a host sequence", print_expr(*a)));
      for (auto& x : *items) pos.push_back(x), pos_exprs.push_back(a.get());
      continue;
    }
    if (pos.empty() && a->kind == ExprKind::FString && device_print_call(f) && varies_per_iteration(*a)) {
      // nl.device_print(f"tile {i}", t): the prefix labels the output, no value of the form; one
      // spelled from loop variables is its template (printed from the form as that text).
      pos.push_back(AValue::of_kind(K::Str, fstring_template(static_cast<const FStringExpr&>(*a))));
      pos_exprs.push_back(a.get());
      continue;
    }
    pos.push_back(eval(*a));
    pos_exprs.push_back(a.get());
  }
  std::vector<std::pair<std::string, AValue>> kw;
  std::vector<std::pair<std::string, const Expr*>> kw_exprs;
  for (auto& k : c.keywords) {
    if (k.name.empty()) {  // `f(t, **options)`: a dict with string keys
      AValue d = eval(*k.value);
      if (d.k != K::Dict) fail(k.span, fmt::format("'**{}' of a value that is not a dict", print_expr(*k.value)));
      for (size_t i = 0; i < d.keys.size(); ++i) {
        if (d.keys[i].k != K::Str) fail(k.span, fmt::format("'**{}' of a dict whose keys are not strings", print_expr(*k.value)));
        kw.push_back({d.keys[i].s, d.items[i]});
        kw_exprs.push_back({d.keys[i].s, nullptr});
      }
      continue;
    }
    // An NKI call's debug label (`name=f"scaled_{i}"`) changes no value: one spelled from loop
    // variables is left out of the form (a statement printed from it has no label; one copied as
    // written keeps it). A function of the kernel gets every argument it is given.
    if (k.name == "name" && k.value->kind == ExprKind::FString && f.k == K::Func && f.s.rfind("user.", 0) != 0 &&
        varies_per_iteration(*k.value))
      continue;
    if ((k.name == "prefix" || k.name == "print_prefix") && k.value->kind == ExprKind::FString && device_print_call(f) &&
        varies_per_iteration(*k.value)) {
      kw.push_back({k.name, AValue::of_kind(K::Str, fstring_template(static_cast<const FStringExpr&>(*k.value)))});
      kw_exprs.push_back({k.name, k.value.get()});
      continue;
    }
    kw.push_back({k.name, eval(*k.value)});
    kw_exprs.push_back({k.name, k.value.get()});
  }
  auto kwarg = [&](const std::string& name) -> const AValue* {
    for (auto& [n, v] : kw)
      if (n == name) return &v;
    return nullptr;
  };
  // A functools.partial called: its bound arguments first, the call's after (a keyword given at the
  // call replaces a bound one).
  while (f.k == K::Partial) {
    const std::vector<AValue>& bound = f.items[0].items;
    pos.insert(pos.begin(), bound.begin(), bound.end());
    pos_exprs.insert(pos_exprs.begin(), bound.size(), c.func.get());
    const AValue& bound_kw = f.items[1];
    for (size_t i = 0; i < bound_kw.keys.size(); ++i)
      if (!kwarg(bound_kw.keys[i].s)) kw.push_back({bound_kw.keys[i].s, bound_kw.items[i]}), kw_exprs.push_back({bound_kw.keys[i].s, nullptr});
    AValue inner = *f.self;
    f = std::move(inner);
  }
  auto ints = [&](size_t i) { return int_of(pos[i], *pos_exprs[i]); };

  if (f.k == K::Class) return construct(f, std::move(pos), std::move(kw), c);
  // An instance of the module's classes called: its __call__, inlined as any method.
  if (f.k == K::Instance && helpers.count(f.s + ".__call__")) return call_method(f, "__call__", std::move(pos), std::move(kw), c);
  if (f.k == K::Method && f.self->k == K::Instance) return call_method(*f.self, f.s, std::move(pos), std::move(kw), c);
  if (f.k == K::Method) {
    AValue self = *f.self;
    if (self.k == K::Dict) return dict_method(self, f.s, pos, c);
    if (self.k == K::Set) return set_method(self, f.s, pos, c);
    if (self.k == K::Tile && f.s == "broadcast_to" && pos.size() == 1)
      // A method call has no callee of its own to copy: printed again, it is the function call.
      return apply("nl.broadcast_to", {{"src", self}, {"shape", pos[0]}}, {{"src", nullptr}, {"shape", pos_exprs[0]}},
                   c, nullptr);
    if (self.k == K::Tile && f.s == "astype" && pos.size() == 1)
      return apply("nl.copy", {{"src", self}, {"dtype", pos[0]}}, {{"src", nullptr}, {"dtype", pos_exprs[0]}}, c, nullptr);
    if (self.k == K::Tile && f.s == "ap") return access_pattern(self, pos, kw, c);
    if (self.k == K::Tile && f.s == "assert_shape" && pos.size() == 1) {
      // A check at trace time (nki.tensor): the kernel stops there when the shape differs.
      std::vector<IExpr> want = shape_of(pos[0], *pos_exprs[0]);
      if (!(want == self.access.tile_shape())) fail(c.span, "a kernel whose assert_shape fails for these arguments");
      return self;
    }
    if (self.k == K::Tile && (f.s == "permute" || f.s == "expand_dim" || f.s == "expand_dims" || f.s == "squeeze_dim" ||
                              f.s == "broadcast" || f.s == "select" || f.s == "reshape_dim" || f.s == "flatten_dims"))
      return view_method(self, f.s, pos, kw, c);
    if (self.k == K::Tile && f.s == "reshape" && pos.size() >= 1 && !whole_access(self.access)) {
      // A part of a tensor reshaped (a view of the same elements): all its dims flattened, then split.
      std::vector<AValue> shape = pos.size() == 1 && (pos[0].k == K::Tuple || pos[0].k == K::List) ? pos[0].items : pos;
      // Keeping its first (partition) dim (`ps.reshape((P, 4, P))` of a [P, 4P] PSUM tile, an item
      // of a list of buffers): only the free dims are flattened and split, as the partitions stay.
      const std::vector<IExpr> tile = self.access.tile_shape();
      if (tile.size() >= 2 && shape.size() >= 2 && shape[0].k == K::Int && shape[0].i == tile[0]) {
        AValue free = tile.size() > 2 ? view_method(self, "flatten_dims", {AValue::of_int(1)}, {}, c) : self;
        std::vector<AValue> rest(shape.begin() + 1, shape.end());
        return view_method(free, "reshape_dim", {AValue::of_int(1), AValue::of_tuple(rest)}, {}, c);
      }
      AValue flat = view_method(self, "flatten_dims", {}, {}, c);
      return view_method(flat, "reshape_dim", {AValue::of_int(0), AValue::of_tuple(shape)}, {}, c);
    }
    if (self.k == K::Tile && f.s == "reshape" && pos.size() >= 1) {
      const Tensor& base = k.tensor(self.access.tensor);
      std::vector<IExpr> shape = pos.size() == 1 ? shape_of(pos[0], *pos_exprs[0]) : [&] {
        std::vector<IExpr> s;
        for (size_t i = 0; i < pos.size(); ++i) s.push_back(ints(i));
        return s;
      }();
      // One dim given as -1 (`x.reshape((-1, D))`): numpy infers it from the element count.
      if (auto unknown = std::find(shape.begin(), shape.end(), IExpr(-1));
          unknown != shape.end() && std::count(shape.begin(), shape.end(), IExpr(-1)) == 1) {
        // The product of the constant dims other than `skip` (nullopt when one is not constant).
        auto product = [](const std::vector<IExpr>& dims, const IExpr* skip) -> std::optional<int64_t> {
          int64_t p = 1;
          for (const IExpr& d : dims) {
            if (&d == skip) continue;
            if (!d.is_constant()) return std::nullopt;
            p *= d.constant();
          }
          return p;
        };
        auto total = product(base.shape, nullptr), known = product(shape, &*unknown);
        if (!total || !known || *known <= 0 || *total % *known != 0)
          fail(c.span, fmt::format("'{}': a -1 dimension the element count does not determine", print_expr(c)));
        *unknown = IExpr(*total / *known);
      }
      return reshaped_view(self.access.tensor, std::move(shape));
    }
    if (self.k == K::DType && f.s == "type" && pos.size() == 1) {
      AValue v = pos[0];
      if (v.k == K::Int && v.i.is_constant()) return AValue::of_float(static_cast<double>(v.i.constant()), self.s);
      if (v.k == K::Float) return AValue::of_float(v.f, self.s);
    }
    fail(c.span, fmt::format("the method call '{}'", print_expr(c)));
  }
  if (f.k == K::DType && pos.size() == 1) {  // np.float32(0.5)
    double x = number_of(pos[0]);
    if (!std::isnan(x)) return AValue::of_float(x, f.s);
  }
  if (f.k != K::Func) fail(c.func->span, fmt::format("the call of '{}'", print_expr(*c.func)));
  const std::string& p = f.s;
  if (p == "nki.language.fori_loop" && pos.size() >= 3) {
    // nl.fori_loop(lower, upper, body_fun, step=1): body_fun(i) for each i, in order: a sequential
    // loop around the function's inlined body (printed back as the call).
    if (pos[2].k != K::Func || pos[2].s.rfind("user.", 0) != 0)
      fail(pos_exprs[2]->span, "an nl.fori_loop of a function the kernel does not define");
    const nki::FunctionCode& code = *helpers.at(pos[2].s.substr(5));
    if (code.params.empty() || code.body.empty()) fail(c.span, "an nl.fori_loop body without a loop variable");
    IExpr step = pos.size() >= 4 ? ints(3) : kwarg("step") ? int_of(*kwarg("step"), c) : IExpr(1);
    if (!step.is_constant() || step.constant() <= 0) fail(c.span, "an nl.fori_loop whose step is not a positive constant");
    const Loop loop = new_loop({.var = code.params[0].name,
                                .kind = LoopKind::Sequential,
                                .start = ints(0),
                                .stop = ints(1),
                                .step = step.constant(),
                                .ordered = true});
    loop_stack.push_back(loop.id);
    size_t before = pending_inline.size();
    inline_call(code, {AValue::of_int(IExpr::var(loop.id))}, {}, c);
    loop_stack.pop_back();
    if (pending_inline.size() > before) {
      Node n = new_node(NodeKind::Loop, *code.body.front());
      n.loop = loop.id;
      n.body = std::move(pending_inline.back().nodes);
      pending_inline.back().nodes.clear();
      pending_inline.back().nodes.push_back(std::move(n));
    }
    return AValue::of_kind(K::None);
  }
  if (p.rfind("user.", 0) == 0) {
    // An array the host allocates with numpy and passes to a kernel that fills it (a baremetal-style
    // output argument, `out = np.zeros(x.shape, x.dtype); kernel[grid](x, out); return out`): an HBM
    // tensor under the host's name from the call on.
    for (size_t i = 0; i < pos.size(); ++i) {
      if (pos[i].k != K::HostArray || pos_exprs[i]->kind != ExprKind::Name) continue;
      const std::string& name = static_cast<const NameExpr&>(*pos_exprs[i]).id;
      Tensor t;
      t.name = name;
      t.role = TensorRole::Output;
      t.memory = Memory::Hbm;
      t.partition_dim = -1;
      t.dtype = pos[i].type;
      for (const auto& d : pos[i].items) t.shape.push_back(d.i);
      t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
      pos[i] = AValue::of_tile(whole(new_tensor(std::move(t))));
      env[name] = pos[i];
    }
    return inline_call(*helpers.at(p.substr(5)), std::move(pos), std::move(kw), c, f.items, f.attrs.get());
  }
  // nl.expand_dims(data, axis): a view of the tile with unit axes inserted (the tile method's
  // view, lift_views.cpp), one per axis of a list, in order.
  if (p == "nki.language.expand_dims" && pos.size() + kw.size() == 2) {
    const AValue* data = !pos.empty() ? &pos[0] : kwarg("data");
    const AValue* axes = pos.size() == 2 ? &pos[1] : kwarg("axis");
    if (!data || !axes || data->k != K::Tile) fail(c.span, fmt::format("'{}' of something other than a tile", print_expr(c)));
    AValue v = *data;
    std::vector<AValue> each = axes->k == K::Tuple || axes->k == K::List ? axes->items : std::vector<AValue>{*axes};
    for (const AValue& a : each) v = view_method(v, "expand_dims", {a}, {}, c);
    return v;
  }
  // SPMD: the program ids of the launch grid are the loops inline_call put around the body; a
  // kernel launched without a grid is one program.
  if (p == "nki.language.program_ndim" && pos.empty()) return AValue::of_int(static_cast<int64_t>(program_loops.size()));
  // Launch-grid dims: nl.nc(k) is k programs (one per NeuronCore), nl.spmd_dim(n, nl.nc(k)) n * k.
  if (p == "nki.language.nc" && pos.size() == 1) return AValue::of_int(ints(0));
  if (p == "nki.language.spmd_dim" && !pos.empty()) {
    IExpr n(1);
    for (size_t i = 0; i < pos.size(); ++i) {
      auto prod = n.times(ints(i));
      if (!prod) fail(c.span, "an nl.spmd_dim of loop-dependent sizes");
      n = *prod;
    }
    return AValue::of_int(n);
  }
  // nl.num_programs(axes): the number of programs along the given axes (an int, a tuple or a
  // list); without axes, the whole grid's (nki-language.md 3.10), as the language core counts them
  // (kernel_launch.cpp). An axis past the grid's dims counts as 1, as program_id's is 0 there.
  if (p == "nki.language.num_programs" && pos.size() <= 1) {
    const AValue* axes = !pos.empty() ? &pos[0] : kwarg("axes") ? kwarg("axes") : kwarg("axis");
    std::vector<AValue> each;
    if (!axes || axes->k == K::None) {
      for (size_t a = 0; a < program_sizes.size(); ++a) each.push_back(AValue::of_int(static_cast<int64_t>(a)));
    } else {
      each = axes->k == K::Tuple || axes->k == K::List ? axes->items : std::vector<AValue>{*axes};
    }
    IExpr n(1);
    for (const AValue& a : each) {
      IExpr axis = int_of(a, c);
      if (!axis.is_constant()) fail(c.span, "a program count of an axis that is not a constant");
      size_t ax = static_cast<size_t>(axis.constant());
      if (ax >= program_sizes.size()) continue;
      auto prod = n.times(program_sizes[ax]);
      if (!prod) fail(c.span, "a program count of loop-dependent grid sizes");
      n = *prod;
    }
    return AValue::of_int(n);
  }
  if (p == "nki.language.program_id" && pos.size() <= 1) {
    // The axis by position or keyword (`nl.program_id(axis=1)`).
    const AValue* axis_kw = kwarg("axis");
    IExpr axis = !pos.empty() ? ints(0) : axis_kw ? int_of(*axis_kw, c) : IExpr(0);
    if (!axis.is_constant()) fail(c.span, "a program id of an axis that is not a constant");
    size_t a = static_cast<size_t>(axis.constant());
    return a < program_loops.size() ? AValue::of_int(IExpr::var(program_loops[a])) : AValue::of_int(0);
  }
  // nki.compiler: direct allocations of on-chip buffers (`buffer=ncc.sbuf.mod_alloc(...)`) place a
  // tensor in SBUF / PSUM; directives (no_reorder, multi_buffer, ...) are scheduling hints.
  if (p.rfind("nki.compiler.sbuf.", 0) == 0) return AValue::of_kind(K::Symbol, "buffer:sbuf");
  if (p.rfind("nki.compiler.psum.", 0) == 0) return AValue::of_kind(K::Symbol, "buffer:psum");
  if (p.rfind("nki.compiler.", 0) == 0 || p == "nki.language.no_reorder") return AValue::of_kind(K::Symbol, "directive");
  if (auto v = host_call(p, pos, pos_exprs, kw, c)) return *v;
  // An NKI API.
  std::string api = short_api(p);
  // The target's generation, a trace-time constant as in the interpreter (8.5): the form is the one
  // the trace on that target runs (Kernel::nc_version); a branch taken on another target is kept
  // as written when the form is printed back.
  if (api == "nisa.get_nc_version") {
    if (!pos.empty() || !kw.empty()) fail(c.span, fmt::format("'{}' with arguments", print_expr(c)));
    return AValue::of_int(k.nc_version);
  }
  const ApiSpec* spec = find_api(api);
  if (!spec) fail(c.span, fmt::format("the call of '{}'", print_expr(*c.func)));
  std::vector<std::string> params = spec->params;
  bool dst_first = kwarg("dst") != nullptr;
  if (!dst_first && k.dialect.new_api && api.rfind("nisa.", 0) == 0 && !pos.empty() && pos[0].k == K::Tile &&
      params[0] != "dst") {
    // Destination-first (NKI 0.6): nisa.X(dst, ...). tensor_tensor's two legacy tensors make the
    // count decide: a third positional tensor means the first is dst.
    bool legacy_tensor_first = api == "nisa.tensor_tensor" || api == "nisa.tensor_scalar" || api == "nisa.nc_matmul" ||
                               api == "nisa.nc_transpose" || api == "nisa.reciprocal" || api == "nisa.tensor_copy" ||
                               api == "nisa.tensor_tensor_scan" || api == "nisa.scalar_tensor_tensor";
    size_t tiles = 0;
    for (auto& v : pos) tiles += v.k == K::Tile ? 1 : 0;
    size_t legacy_tiles = api == "nisa.tensor_tensor" || api == "nisa.nc_matmul" || api == "nisa.tensor_tensor_scan" ? 2 : 1;
    dst_first = !legacy_tensor_first || tiles > legacy_tiles;
  }
  if (dst_first) {
    // Positional arguments after dst in the newer order (nki-language.md 12.2), which the
    // interpreter binds by too: `nisa.scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1)`.
    const auto* newer = api.rfind("nisa.", 0) == 0 ? nki::lib::isa_newer_positional(api.substr(5)) : nullptr;
    if (api == "nisa.memset") {
      params = {"dst", "value", "engine"};
    } else if (newer) {
      std::vector<std::string> ordered = {"dst"};
      ordered.insert(ordered.end(), newer->begin(), newer->end());
      for (const auto& p : params)
        if (std::find(ordered.begin(), ordered.end(), p) == ordered.end()) ordered.push_back(p);
      params = std::move(ordered);
    } else if (params[0] != "dst") {
      params.insert(params.begin(), "dst");
    }
  }
  std::vector<std::pair<std::string, AValue>> args;
  std::vector<std::pair<std::string, const Expr*>> origins;
  positional_.clear();
  for (size_t i = 0; i < pos.size(); ++i) {
    if (i >= params.size()) fail(pos_exprs[i]->span, fmt::format("'{}': too many positional arguments", print_expr(c)));
    args.push_back({params[i], pos[i]});
    origins.push_back({params[i], pos_exprs[i]});
    positional_.insert(params[i]);
  }
  for (size_t i = 0; i < kw.size(); ++i) {
    args.push_back({kw[i].first, kw[i].second});
    origins.push_back({kw[i].first, kw_exprs[i].second});
  }
  AValue r = apply(api, std::move(args), std::move(origins), c, &c);
  positional_.clear();
  return r;
}

}  // namespace loopnest::detail
