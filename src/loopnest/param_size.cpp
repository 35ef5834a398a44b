// A size the kernel takes as a parameter with a default (`def kernel(delta, u, ..., chunk=1024)`)
// that the task does not pass, or a module constant (`COLS = 2048`, which a library kernel's
// entry point passes to its implementation, `_impl(x, out, ROWS, COLS)`, whose trips are
// ceil-divided and tails masked for any value): free_size's site on it sets the literal to twice,
// half or a quarter of the value (a quarter: a size whose halving alone is slower, 2048 -> 1024 on
// a scan kernel, can still gain at 512, where an accumulator fits one PSUM bank).
// An author who makes a tile size a parameter writes the kernel for other values of it, and the
// default is where the size is decided; on the form it shows as literal shapes and trips (1024,
// 7), and as other literals derived from it (`h[:, chunk - 1:chunk]` is column 1023), which no move
// on the form may rescale, so the move edits the default in the source and lifts the kernel again:
// every use follows.
//
// Offered when the size (a literal, or an expression of literals, earlier constants and
// `nl.tile_size` limits, replaced by the new literal) is a power of two or a multiple of 128 in
// [128, 8192] and the new one a whole multiple or fraction of it, a parameter is not passed
// by the task (the lift used the default), a module constant is bound by that one statement of the
// module and passed by the kernel to a function of the module (its implementation) or used by the
// kernel in a ceil-division or a `min` clamp (its ragged last tile written for any value), the new value
// lifts, and the new form differs from the old one (the literal sizes something). That the new size tiles the task's dimensions is the
// planner's pre-check (agents/builtin/legality.cpp, as for every free_size site); the hardware
// tile limits are checked on the result (find_sites, resizes_tiles); the five-seed check is final.
#include "loopnest/param_size.h"

#include <functional>
#include <map>
#include <set>

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/literal_constants.h"
#include "loopnest/source_edit.h"
#include "nki/ast_walk.h"

namespace loopnest {

namespace {

// `text` with `count` characters at (line, col) (1-based) replaced by `with`; nullopt when the line
// is not there.
std::optional<std::string> replaced(const std::string& text, uint32_t line, uint32_t col, size_t count,
                                    const std::string& with) {
  const size_t at = source_offset(text, line, col);
  if (at == std::string::npos || at + count > text.size()) return std::nullopt;
  return text.substr(0, at) + with + text.substr(at + count);
}

// A size written once in the source (a parameter's default, a module constant), as a literal or
// an expression of literals and hardware limits (`2 * nl.tile_size.gemm_moving_fmax`): the
// written value replaced by a literal of another value, the kernel lifted again from the edited
// text. A site per new value whose form differs; true when the sink stopped.
struct SizeLiteral {
  std::string var;    // the parameter's or the constant's name
  std::string where;  // site parameter `default`: "param", "callee", "module" or "local"
  std::string what;   // how the description names it
  std::string note;   // said after the values
  const nki::Expr* value = nullptr;
  int64_t size = 0;   // what `value` evaluates to
  int64_t above = 0;  // offered only when the size is larger (a free-axis size)
};

// Per output of the kernel, per dim: the lowest and highest element any write of it reaches over
// every iteration; nullopt where the bounds cannot tell (an unbounded variable, a negative stride).
using Extent = std::optional<std::pair<int64_t, int64_t>>;

// The highest index of tile axis `axis` a mask constraint lets through at `at`: one constraint on that
// axis alone (`col < M`, `expr - a1 >= 0`), else nullopt.
std::optional<int64_t> mask_top(const Constraint& c, int axis, const std::map<int, int64_t>& at) {
  int64_t coeff = 0;
  for (const auto& [ax, k] : c.axes) {
    if (k == 0) continue;
    if (ax != axis || coeff != 0) return std::nullopt;
    coeff = k;
  }
  auto e = c.expr.eval(at);
  if (!e || coeff == 0) return std::nullopt;
  // e + coeff * a (cmp) 0, as `a <= bound`.
  if (coeff < 0 && c.cmp == Cmp::Ge) return floor_div(*e, -coeff);
  if (coeff < 0 && c.cmp == Cmp::Gt) return floor_div(*e - 1, -coeff);
  if (coeff > 0 && c.cmp == Cmp::Le) return floor_div(-*e, coeff);
  if (coeff > 0 && c.cmp == Cmp::Lt) return floor_div(-*e - 1, coeff);
  return std::nullopt;
}

// The elements one dim of an access reaches over every iteration: each assignment of the loop
// variables its start and window sizes use is evaluated (a ragged last window, `min(CHUNK, cols -
// c0)`, ends where the row does; interval bounds of start and size taken apart would not), a window
// cut where the op's mask stops it (`mask=(col < M)` on the last of 2048-wide windows: the row's
// end, whatever the window width), up to 2^16 assignments; nullopt beyond, or where a variable is
// unbounded or a stride negative.
Extent dim_extent(const DimIndex& di, const Ranges& ranges, const std::vector<Constraint>& mask) {
  std::set<int> used;
  for (int v : di.start.vars()) used.insert(v);
  for (const AxisTerm& a : di.terms) {
    if (a.stride < 0) return std::nullopt;
    for (int v : a.size.vars()) used.insert(v);
  }
  for (const Constraint& c : mask)
    for (int v : c.expr.vars()) used.insert(v);
  std::vector<std::pair<int, std::pair<int64_t, int64_t>>> vars;
  int64_t assignments = 1;
  for (int v : used) {
    auto r = ranges.find(v);
    if (r == ranges.end() || r->second.second < r->second.first) return std::nullopt;
    assignments *= r->second.second - r->second.first + 1;
    if (assignments > (1 << 16)) return std::nullopt;
    vars.push_back({v, r->second});
  }
  Extent reach;
  std::map<int, int64_t> at;
  for (const auto& [v, r] : vars) at[v] = r.first;
  for (int64_t n = 0; n < assignments; ++n) {
    std::optional<int64_t> lo = di.start.eval(at), hi = lo;
    for (const AxisTerm& a : di.terms) {
      if (!hi) break;
      std::optional<int64_t> top;
      if (!a.affine()) top = a.max_index();
      else if (auto size = a.size.eval(at)) top = *size - 1;
      if (!top) return std::nullopt;
      if (a.affine())
        for (const Constraint& c : mask)
          if (auto cut = mask_top(c, a.axis, at)) top = std::min(*top, *cut);
      if (*top < 0) hi.reset();  // an empty window writes nothing
      else *hi += a.stride * *top;
    }
    if (!lo) return std::nullopt;
    if (hi) reach = reach ? Extent(std::make_pair(std::min(reach->first, *lo), std::max(reach->second, *hi)))
                          : Extent(std::make_pair(*lo, *hi));
    for (size_t i = vars.size(); i-- > 0;) {  // the next assignment, the last variable fastest
      int v = vars[i].first;
      if (++at[v] <= vars[i].second.second) break;
      at[v] = vars[i].second.first;
    }
  }
  return reach;
}

// `reach` (per dim of the reshaped view `view`) in the dims of its storage `base`, where each base
// dim is split into consecutive view dims (`out.reshape((D, T // F, F))`: dims 1 and 2 are base
// dim 1, element `F * n + f`): the lowest and highest element of a base dim are the view dims'
// lowest and highest combined, the combination growing in each. Elsewhere (a view of fewer
// elements, merged dims, shapes not constant) `reach` as it is. Compared in the view's own dims,
// an edited tile width changes the view's shape and every write looked different (session 37).
std::vector<Extent> in_base_dims(const Kernel& k, int view, int base, std::vector<Extent> reach) {
  auto constants = [](const std::vector<IExpr>& shape) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (const IExpr& d : shape) {
      if (!d.is_constant() || d.constant() <= 0) return std::nullopt;
      out.push_back(d.constant());
    }
    return out;
  };
  auto vs = constants(k.tensor(view).shape), bs = constants(k.tensor(base).shape);
  if (view == base || !vs || !bs || vs->size() != reach.size()) return reach;
  std::vector<Extent> out;
  size_t d = 0;
  for (int64_t size : *bs) {
    const size_t first = d;
    int64_t product = 1;
    while (d < vs->size() && product < size) product *= (*vs)[d++];
    if (product != size || d == first) return reach;
    Extent e = std::make_pair(int64_t{0}, int64_t{0});
    int64_t stride = 1;
    for (size_t i = d; i-- > first;) {
      if (!reach[i] || !e) e.reset();
      else e = std::make_pair(e->first + reach[i]->first * stride, e->second + reach[i]->second * stride);
      stride *= (*vs)[i];
    }
    out.push_back(e);
  }
  return d == vs->size() ? out : reach;
}

std::map<int, std::vector<Extent>> output_extents(const Kernel& k) {
  const Ranges ranges = k.ranges();
  std::set<int> outputs;
  for (int t : k.outputs) outputs.insert(storage_of(k, t));
  std::map<int, std::vector<Extent>> out;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops)
      for (const Access* w : writes(op)) {
        const int t = storage_of(k, w->tensor);
        if (!outputs.count(t)) continue;
        std::vector<Extent> reach;
        for (const DimIndex& di : w->dims) reach.push_back(dim_extent(di, ranges, op.mask));
        reach = in_base_dims(k, w->tensor, t, std::move(reach));
        auto [it, fresh] = out.try_emplace(t, reach);
        if (fresh) continue;
        std::vector<Extent>& seen = it->second;
        if (seen.size() != reach.size()) {
          seen.assign(std::max(seen.size(), reach.size()), std::nullopt);
          continue;
        }
        for (size_t d = 0; d < seen.size(); ++d)
          seen[d] = seen[d] && reach[d] ? Extent(std::make_pair(std::min(seen[d]->first, reach[d]->first),
                                                                std::max(seen[d]->second, reach[d]->second)))
                                        : std::nullopt;
      }
  });
  return out;
}

// Whether an output dim both forms bound is reached differently: the edited size is not one every
// use follows. A kernel whose column loop a move coarsened (`for b in nl.affine_range(n_blk // 2)`
// over literal 1024-wide tiles) still computes its trip from the constant: doubling it halves the
// trip and leaves half of every row unwritten (an outside author's adamw: the output's columns
// 0..2047 -> 0..1023, evaluated as inf).
bool changes_what_is_written(const Kernel& before, const Kernel& after) {
  auto a = output_extents(before), b = output_extents(after);
  for (const auto& [t, dims] : a) {
    auto it = b.find(t);
    if (it == b.end()) return true;
    for (size_t d = 0; d < dims.size() && d < it->second.size(); ++d)
      if (dims[d] && it->second[d] && *dims[d] != *it->second[d]) return true;
  }
  return false;
}

// Whether a DMA of the kernel moves a tile into a region of another size, or a matmul's result is
// wider or taller than its destination, where the shapes are constant: a literal a move printed (a
// coarsened tile's width) that no longer matches the shapes still following an edited size (an
// outside author's mamba after a coarsening, its chunk constant doubled: dst (128, 1024), src (128,
// 512); its matmul's PSUM tile halved under a 512-wide result).
bool shapes_disagree(const Kernel& k) {
  auto shape = [](const Access& a) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (const IExpr& d : a.tile_shape()) {
      if (!d.is_constant()) return std::nullopt;
      out.push_back(d.constant());
    }
    return out;
  };
  auto elements = [](const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  };
  bool disagree = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops) {
      if (disagree || !op.dst) continue;
      auto dst = shape(*op.dst);
      if (!dst || dst->empty()) continue;
      if (op.cls == OpClass::Load || op.cls == OpClass::Store || op.cls == OpClass::DmaCopy) {
        std::vector<const Access*> src = reads(op);
        if (src.size() != 1) continue;
        auto from = shape(*src[0]);
        disagree = from && elements(*from) != elements(*dst);
      } else if (op.cls == OpClass::Matmul) {
        const Operand* moving = operand(op, "moving");
        const Operand* stationary = operand(op, "stationary");
        if (!moving || !stationary || moving->kind != Operand::Kind::Tile || stationary->kind != Operand::Kind::Tile)
          continue;
        auto m = shape(moving->access), st = shape(stationary->access);
        disagree = m && st && dst->size() == 2 && !m->empty() && !st->empty() &&
                   ((*dst)[1] != m->back() || (*dst)[0] != st->back());
      }
    }
  });
  return disagree;
}

// Each edit of `lit` to a value of `values(from)` (in [128, 8192]) whose relifted
// form differs and writes the same output elements with agreeing shapes, given to `f` with the
// edited kernel; true when `f` stopped.
using SizeEditFn = std::function<bool(const SizeLiteral&, int64_t from, int64_t to, Kernel&& after)>;
bool edits_of_literal(const Kernel& k, const std::vector<ArgSpec>& args, const std::string& before,
                      const SizeLiteral& lit, const std::function<std::vector<int64_t>(int64_t)>& values,
                      const SizeEditFn& f) {
  const std::string& text = k.module->file->text;
  if (!lit.value) return false;
  const nki::Span& sp = lit.value->span;
  if (sp.line == 0 || sp.line != sp.end_line || sp.col == 0 || sp.end_col <= sp.col) return false;
  const int64_t from = lit.size;
  // A tile size: a power of two, or a multiple of 128 (a width chosen to divide the data, 1792 of
  // 7168), from 128 to 8192.
  if (from < 128 || from > 8192 || ((from & (from - 1)) != 0 && from % 128 != 0) || from <= lit.above) return false;
  const std::string written = k.module->file->line_text(sp.line).substr(sp.col - 1, sp.end_col - sp.col);
  if (lit.value->kind == nki::ExprKind::Constant && written != std::to_string(from)) return false;
  for (int64_t to : values(from)) {
    // A whole multiple or fraction of the written size: every trip it counts scales with it.
    if (to < 128 || to > 8192 || (to > from ? to % from : from % to) != 0) continue;
    auto edited = replaced(text, sp.line, sp.col, written.size(), std::to_string(to));
    if (!edited) continue;
    Kernel after;
    try {
      after = lift_source(k.module->file->path, *edited, args, k.entry, k.nc_version);
    } catch (const LiftError&) {
      continue;
    }
    if (dump(after) == before) continue;  // the literal sizes nothing the form holds
    if (changes_what_is_written(k, after) || (!shapes_disagree(k) && shapes_disagree(after))) continue;
    if (f(lit, from, to, std::move(after))) return true;
  }
  return false;
}

// Whether the kernel's own statements pass the module constant `name` to a function of the module
// (`_impl(x, out, ROWS, COLS)`): an implementation taking the size as a parameter is written for
// other values of it. A constant the kernel only reads (a corpus kernel's `CHUNK` in its slices,
// a partition count) may be tied to the rest of its text, so it is no site.
bool passed_to_helper(const nki::FunctionCode& fn, const nki::ModuleAst& module, const std::string& name) {
  std::set<std::string> functions;
  for (const auto& s : module.body)
    if (s->kind == nki::StmtKind::FunctionDef) functions.insert(static_cast<const nki::FunctionDefStmt&>(*s).code->name);
  auto names_it = [&](const nki::Expr* e) {
    return e && e->kind == nki::ExprKind::Name && static_cast<const nki::NameExpr&>(*e).id == name;
  };
  for (const auto& st : fn.body) {
    const nki::Expr* v = nullptr;
    if (st->kind == nki::StmtKind::Expr) v = static_cast<const nki::ExprStmt&>(*st).value.get();
    else if (st->kind == nki::StmtKind::Assign) v = static_cast<const nki::AssignStmt&>(*st).value.get();
    else if (st->kind == nki::StmtKind::Return) v = static_cast<const nki::ReturnStmt&>(*st).value.get();
    if (!v || v->kind != nki::ExprKind::Call) continue;
    const auto& call = static_cast<const nki::CallExpr&>(*v);
    if (!call.func || call.func->kind != nki::ExprKind::Name ||
        !functions.count(static_cast<const nki::NameExpr&>(*call.func).id))
      continue;
    for (const auto& a : call.args)
      if (names_it(a.get())) return true;
    for (const auto& kw : call.keywords)
      if (names_it(kw.value.get())) return true;
  }
  return false;
}

// The module's ceil-division helpers (`def cdiv(a, b): return (a + b - 1) // b`, a Triton port's
// block count): per function, the positions of the parameters its returned expression
// floor-divides by.
using CeilDividers = std::map<std::string, std::set<size_t>>;
CeilDividers ceil_division_helpers(const nki::ModuleAst& module) {
  std::map<std::string, std::set<size_t>> out;
  for (const auto& s : module.body) {
    if (s->kind != nki::StmtKind::FunctionDef) continue;
    const nki::FunctionCode& code = *static_cast<const nki::FunctionDefStmt&>(*s).code;
    if (code.body.size() != 1 || code.body[0]->kind != nki::StmtKind::Return) continue;
    auto& ret = const_cast<nki::ExprPtr&>(static_cast<const nki::ReturnStmt&>(*code.body[0]).value);
    if (!ret) continue;
    nki::walk(*ret, [&](nki::Expr& x) {
      if (x.kind != nki::ExprKind::BinOp) return;
      const auto& b = static_cast<const nki::BinOpExpr&>(x);
      if (b.op != nki::BinOp::FloorDiv || !b.right || b.right->kind != nki::ExprKind::Name) return;
      const std::string& by = static_cast<const nki::NameExpr&>(*b.right).id;
      for (size_t i = 0; i < code.params.size(); ++i)
        if (code.params[i].name == by) out[code.name].insert(i);
    });
  }
  return out;
}

// Whether the kernel's own text handles any value of the module constant `name`: it ceil-divides
// by it (`(seq + CHUNK - 1) // CHUNK`, or through a helper of the module doing that, `cdiv(M,
// BLOCK_M)`) or clamps a tile to it (`min(CHUNK, seq - t0)`), the spellings of a ragged last tile.
// An author who writes the tail is writing for sizes that do not divide the data, so the constant
// is a tile size to choose, like one passed to an implementation. `ceil_dividers`: the module's
// ceil_division_helpers.
bool written_for_any_value(const nki::FunctionCode& fn, const CeilDividers& ceil_dividers, const std::string& name) {
  auto names_it = [&](const nki::Expr* e) {
    return e && e->kind == nki::ExprKind::Name && static_cast<const nki::NameExpr&>(*e).id == name;
  };
  auto mentions_it = [&](nki::Expr& e) {
    bool found = false;
    nki::walk(e, [&](nki::Expr& x) { found = found || names_it(&x); });
    return found;
  };
  bool handled = false;
  // The walk only reads; it takes mutable trees because the rewrites share it.
  auto& body = const_cast<nki::Block&>(fn.body);
  nki::for_each_expr(body, [&](nki::ExprPtr& p) {
    if (handled || !p) return;
    if (p->kind == nki::ExprKind::BinOp) {
      auto& b = static_cast<nki::BinOpExpr&>(*p);
      handled = b.op == nki::BinOp::FloorDiv && names_it(b.right.get()) && b.left && mentions_it(*b.left);
    } else if (p->kind == nki::ExprKind::Call) {
      auto& c = static_cast<nki::CallExpr&>(*p);
      if (!c.func || c.func->kind != nki::ExprKind::Name) return;
      const std::string& callee = static_cast<const nki::NameExpr&>(*c.func).id;
      if (callee == "min")
        for (const auto& a : c.args) handled = handled || names_it(a.get());
      if (auto it = ceil_dividers.find(callee); it != ceil_dividers.end())
        for (size_t i : it->second) handled = handled || (i < c.args.size() && names_it(c.args[i].get()));
    }
  });
  return handled;
}

// Whether the kernel floor-divides a size by the constant `name`, its own or its module's (`T // F`,
// a loop's trip or a reshaped view's tile count, `x.reshape((D, T // F, F))`): the constant is the
// tile width its trip counts follow, as a literal `n // V` of a loop is for free_size. A value that
// does not divide the data drops the tail, which the written-elements check refuses (session 37: an
// outside author's rope kept `F = 512` in a kernel-local constant and its 64-partition halves never
// widened to the width fill_partitions needs).
bool divides_a_size(const nki::FunctionCode& fn, const std::string& name) {
  bool divides = false;
  auto& body = const_cast<nki::Block&>(fn.body);  // read only; the walk takes mutable trees
  nki::for_each_expr(body, [&](nki::ExprPtr& p) {  // every expression, nested ones included
    if (!p || p->kind != nki::ExprKind::BinOp) return;
    const auto& b = static_cast<const nki::BinOpExpr&>(*p);
    divides = divides || (b.op == nki::BinOp::FloorDiv && b.right && b.right->kind == nki::ExprKind::Name &&
                          static_cast<const nki::NameExpr&>(*b.right).id == name);
  });
  return divides;
}

// Whether the kernel spells the constant's value `value` as an integer literal outside its binding
// (`nl.mgrid[0:64, 0:768]` beside `W = 768`; `res[:, 1024 * h:1024 * h + 1024]` beside `block = 1024`,
// a move's printed window): that text would not follow an edit, and a window narrower than the step
// its loop now takes leaves columns between windows unwritten, which the written-elements check (the
// lowest and highest element per dim) does not see (a ragged rope's W 768 -> 1536, evaluated as inf).
bool spells_value(const nki::FunctionCode& fn, const nki::Expr* binding, int64_t value) {
  auto inside_binding = [&](const nki::Span& sp) {
    const nki::Span& b = binding->span;
    return sp.line == b.line && sp.end_line == b.end_line && sp.col >= b.col && sp.end_col <= b.end_col;
  };
  bool spelled = false;
  auto& body = const_cast<nki::Block&>(fn.body);  // read only; the walk takes mutable trees
  nki::for_each_expr(body, [&](nki::ExprPtr& p) {
    if (!p || p->kind != nki::ExprKind::Constant || inside_binding(p->span)) return;
    const nki::Value& v = static_cast<const nki::ConstantExpr&>(*p).value;
    spelled = spelled || (v.is_int() && v.as_int() == value);
  });
  return spelled;
}

// Whether `fn`'s parameters begin with the file's arguments (`kernel.params`): the entry, whose
// defaults the loop above reads against what the task passes; for a kernel launched on a grid, the
// wrapper launching it (its own parameters are the task's too).
bool takes_the_files_arguments(const Kernel& k, const nki::FunctionCode& fn) {
  if (fn.params.size() < k.params.size()) return false;
  for (size_t i = 0; i < k.params.size(); ++i)
    if (fn.params[i].name != k.params[i].name) return false;
  return true;
}

// A size given as the default of a parameter of a function the kernel calls, not of the entry: a
// kernel launched on a grid by a wrapper that passes the arrays only (`_scan[C // 128](delta, u,
// a, b, c)` of `def _scan(delta, u, a, b, c, seq_tile=1024)`), a helper taking its tile width as
// `cols=1024`. The kernel's form follows the default exactly when no call passes that parameter:
// what decides it is the lifted form, which changes with the edited default or does not (a default
// every call overrides sizes nothing, dump equal, no site). The parameters of the function whose
// names are the file's arguments are the task's (the loop over `k.params` above). Like a module
// constant, no site where the function also spells the value as a literal, which would not follow.
bool for_each_callee_default(const Kernel& k, const std::vector<ArgSpec>& args,
                             const std::function<std::vector<int64_t>(int64_t)>& values, const SizeEditFn& f) {
  // Compared with the source as written lifted again, not with `k`: a form with the helpers opened
  // (helpers=open sites) differs from any plain lift, and a default every call overrides would look
  // like one that sizes something.
  std::optional<std::string> before;
  for (const auto& st : k.module->body) {
    if (st->kind != nki::StmtKind::FunctionDef) continue;
    const nki::FunctionCode& fn = *static_cast<const nki::FunctionDefStmt&>(*st).code;
    const size_t first = takes_the_files_arguments(k, fn) ? k.params.size() : 0;
    for (size_t i = first; i < fn.params.size(); ++i) {
      const nki::Parameter& decl = fn.params[i];
      if (!decl.default_value) continue;
      auto size = size_expression_value(*decl.default_value, {});
      if (!size || spells_value(fn, decl.default_value.get(), *size)) continue;
      SizeLiteral lit{decl.name, "callee", fmt::format("`{}`'s parameter", fn.name),
                      " (its default; no call passes it)", decl.default_value.get(), *size};
      if (!before) {
        try {
          before = dump(lift_source(k.module->file->path, k.module->file->text, args, k.entry, k.nc_version));
        } catch (const LiftError&) {
          return false;
        }
      }
      if (edits_of_literal(k, args, *before, lit, values, f)) return true;
    }
  }
  return false;
}

// Every size constant free_size may change (a parameter default the task leaves; a module or kernel
// constant passed to an implementation or whose ragged tail the kernel writes, or, for the moves
// that widen or narrow through it, dividing a size), each edit to `values(from)` given to `f`; true when `f` stopped.
bool for_each_size_edit(const Kernel& k, bool dividing_constants,
                        const std::function<std::vector<int64_t>(int64_t)>& values, const SizeEditFn& f) {
  if (!k.function || !k.module || !k.module->file) return false;
  auto args = own_arguments(k);
  if (!args) return false;
  const std::string before = dump(k);
  const auto& params = k.function->params;
  for (size_t i = 0; i < params.size() && i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    const nki::Parameter& decl = params[i];
    if (p.tensor >= 0 || p.passed || p.name != decl.name || !decl.default_value) continue;
    auto size = size_expression_value(*decl.default_value, {});
    if (!size) continue;
    if (edits_of_literal(k, *args, before,
                         {p.name, "param", "the kernel parameter", " (its default; the task does not pass it)",
                          decl.default_value.get(), *size},
                         values, f))
      return true;
  }
  if (for_each_callee_default(k, *args, values, f)) return true;
  const CeilDividers ceil_dividers = ceil_division_helpers(*k.module);
  for (const auto& [id, e, size] : module_size_constants(*k.module)) {
    SizeLiteral lit{id, "module", "the module constant", " (a tile size its masks and trip counts follow)", e, size};
    // A constant the kernel reads itself is a site when its ragged tail is written, and only above
    // 128: a partition count (`TILE_ROWS = 128` clamped by `min`) cannot grow, and where it is
    // clamped the lifted form cannot see its size to refuse it.
    if (!passed_to_helper(*k.function, *k.module, id)) {
      if (!written_for_any_value(*k.function, ceil_dividers, id) &&
          !(dividing_constants && divides_a_size(*k.function, id)))
        continue;
      lit.above = 128;
    }
    if (spells_value(*k.function, e, size)) continue;
    if (edits_of_literal(k, *args, before, lit, values, f)) return true;
  }
  for (const auto& [id, e, size] : local_size_constants(*k.function, k.module.get())) {
    if (!passed_to_helper(*k.function, *k.module, id) && !written_for_any_value(*k.function, ceil_dividers, id) &&
        !(dividing_constants && divides_a_size(*k.function, id)))
      continue;
    if (spells_value(*k.function, e, size)) continue;
    SizeLiteral lit{id, "local", "the kernel's constant", " (a tile size its masks and trip counts follow)", e, size, 128};
    if (edits_of_literal(k, *args, before, lit, values, f)) return true;
  }
  return false;
}

}  // namespace

bool visit_parameter_sizes(Kernel& k, const SiteSink& sink, bool dividing_constants) {
  // A quarter, half or twice the value: halving alone can be slower where a quarter gains.
  return for_each_size_edit(
      k, dividing_constants, [](int64_t from) { return std::vector<int64_t>{from / 4, from / 2, from * 2}; },
      [&](const SizeLiteral& lit, int64_t from, int64_t to, Kernel&& after) {
        // Anchored at the kernel's first loop (the literal has no statement of the form).
        std::vector<int> loops = open_loop_ids(k);
        Node* first = loops.empty() ? nullptr : find_node(k, loops.front());
        if (!first) return false;
        Analysis an(k);
        auto s = make_loop_site(
            k, an, *first, fmt::format("set {} `{}` from {} to {}{}", lit.what, lit.var, from, to, lit.note),
            {{"var", lit.var}, {"from", std::to_string(from)}, {"value", std::to_string(to)}, {"default", lit.where}});
        if (!s) return false;
        auto shared = std::make_shared<Kernel>(std::move(after));
        return sink(*s, [&k, shared] { k = *shared; });
      });
}

std::vector<SizeEdit> resized_sizes(const Kernel& k, const std::function<std::vector<int64_t>(int64_t)>& values) {
  std::vector<SizeEdit> out;
  for_each_size_edit(k, /*dividing_constants=*/true, values,
                     [&](const SizeLiteral& lit, int64_t from, int64_t to, Kernel&& after) {
                       out.push_back({lit.var, lit.where, from, to, std::move(after)});
                       return false;
                     });
  return out;
}

std::vector<SizeEdit> widened_sizes(const Kernel& k, const std::vector<int64_t>& factors) {
  return resized_sizes(k, [&](int64_t from) {
    std::vector<int64_t> to;
    for (int64_t f : factors) to.push_back(from * f);
    return to;
  });
}

}  // namespace loopnest
