// An access printed from the form (emitter.h): slices or index grids in the kernel's style, list
// elements by the name in scope, and the author's text wherever a move left it standing: the dims
// it did not change, `nl.ds(start, size)` where the author wrote one, grids the author named.
#include "loopnest/emitter.h"
#include "loopnest/flat_list.h"

#include <algorithm>

#include <fmt/core.h>

namespace loopnest::detail {

// `write`: the access is a destination, so a whole tensor is `t[...]` (a bare name would rebind).
// `written` / `old`: the expression and access the lift read for it (Operand::written): the dims
// equal to the old ones print as the author wrote them, the others in the author's spelling.
std::string Emitter::access(const Access& a, bool write, const Expr* written, const Access* old) {
  const Tensor& t = k_.tensor(a.tensor);
  size_t levels = t.list_levels();
  bool list_indexed = levels > 0 && a.dims.size() >= levels;
  for (size_t d = 0; list_indexed && d < levels; ++d) list_indexed = a.dims[d].terms.empty();
  if (list_indexed) {
    // A list element: the iteration's own tile by its name, another one through the list in
    // scope (`scores[m]`; in lists of lists the deepest level whose loops enclose the access:
    // `result_tiles[m][bm][bn]` outside the m loop, `block_tiles[bm][bn]` inside it).
    Access rest = a;
    rest.dims.erase(rest.dims.begin(), rest.dims.begin() + static_cast<long>(levels));
    std::string inner = list_element(t, rest, write);
    std::vector<std::pair<std::string, int>> lists = t.outer_lists;
    lists.push_back({t.list_name, t.list_loop});
    size_t in_scope = 0;
    while (in_scope < levels && lists[in_scope].second >= 0 && a.dims[in_scope].start == IExpr::var(lists[in_scope].second))
      ++in_scope;
    if (in_scope == levels) return inner;
    std::string sub = inner.size() > t.name.size() ? inner.substr(t.name.size()) : "";
    // One Python list over both levels (flat_list.h): `probs_t[t]`, `probs_t[4*j + 1]`.
    if (flat_list(t))
      return t.list_name + "[" + str(flat_index(a.dims[0].start, a.dims[1].start, t.shape[1].constant())) + "]" + sub;
    std::string index;
    for (size_t d = in_scope; d < levels; ++d) index += "[" + str(a.dims[d].start) + "]";
    return lists[in_scope].first + index + sub;
  }
  std::string name = tensor_text(t);
  if (whole_dims(a.dims, t.shape)) {
    if (!write) return name;
    if (t.shape.empty() || t.partition_dim <= 0) return name + "[...]";
  }
  size_t rank = a.tile_shape().size();
  const std::vector<int64_t> dense = dense_shape(a.tile_shape());
  // Slices when every dim has at most one term, on axes in increasing order; also in a kernel that
  // indexes with grids, for a 1-D tile of an on-chip tensor, which no grid can index
  // (err_1d_arange_not_supported: `nl.arange(n)` needs `[:, None]` there).
  bool slices = (!k_.dialect.grid_indexing || (rank == 1 && t.on_chip())) && a.rank < 0 && affine(a);
  int next = 0;
  for (const auto& d : a.dims) {
    if (d.terms.size() > 1) slices = false;
    for (const auto& term : d.terms) slices = slices && term.axis == next++ && !backward_stop(d, term);
  }
  // The author's elements, where the tile keeps its rank (a copied index grid names its axes).
  std::vector<const Expr*> written_elems = written_elements(a, name, written, old);
  if (!written_elems.empty() && (old->rank != a.rank || old->tile_shape().size() != rank)) written_elems.clear();
  // Each dim's author's element and old index: dims a move inserted (block dims of an expanded
  // buffer) have none; the others keep their order around them.
  std::vector<const Expr*> elems(a.dims.size(), nullptr);
  std::vector<const DimIndex*> was(a.dims.size(), nullptr);
  if (!written_elems.empty() && old->dims.size() == a.dims.size() + 1) {
    // The slot dim dropped (`ring[s, 0:rows, :]` -> `ring[0:rows, :]`): the others as written.
    for (size_t d = 0; d < a.dims.size(); ++d) elems[d] = written_elems[d + 1], was[d] = &old->dims[d + 1];
  } else if (!written_elems.empty()) {
    const size_t added = a.dims.size() - old->dims.size();
    size_t best = 0, best_equal = 0;
    for (size_t pos = 0; pos <= old->dims.size() && added > 0; ++pos) {
      size_t equal = 0;
      for (size_t i = 0; i < old->dims.size(); ++i) equal += old->dims[i] == a.dims[i < pos ? i : i + added];
      if (equal > best_equal) best = pos, best_equal = equal;
    }
    for (size_t i = 0; i < old->dims.size(); ++i) {
      const size_t d = i < best ? i : i + added;
      elems[d] = written_elems[i];
      was[d] = &old->dims[i];
    }
  }
  std::string out = name + "[";
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    std::string s;
    // (An index grid's text may carry extents on other axes the form does not show: `i_p` of
    // `i_p, i_f = nl.mgrid[0:64, 0:768]` is (64, 768); only slices, `nl.ds` and integers copy.)
    if (elems[d] && same_dim(di, *was[d]) &&
        (di.terms.empty() || elems[d]->kind == ExprKind::Slice || !ds_callee(elems[d]).empty())) {
      s = source(*elems[d]);
    } else if (slices && di.terms.size() == 1) {
      const AxisTerm& term = di.terms[0];
      // The stop of a strided slice is one past its last element (`1::2` of 64 is 1:64:2, not
      // 1:65:2, which reaches outside the dim).
      IExpr hi = term.stride == 1 ? di.start + term.size : di.start + (term.size - 1) * term.stride + 1;
      bool full = di.start == IExpr(0) && term.stride == 1 && d < t.shape.size() && hi == t.shape[d];
      s = full ? ":" : fmt::format("{}:{}", str(di.start), str(hi));
      // Where the author wrote `nl.ds(start, size)`, the new start and size in it.
      if (std::string ds = ds_callee(elems[d]); !full && !ds.empty() && term.stride == 1 && term.affine())
        s = fmt::format("{}({}, {})", ds, str(di.start), str(term.size));
      // Walking backwards the stop is one before the last element; past index 0 Python has no
      // number for it (-1 counts from the end), so it is left out (`255::-1`).
      if (term.stride < 0) {
        IExpr stop = di.start + (term.size - 1) * term.stride - 1;
        s = stop == IExpr(-1) ? str(di.start) + ":" : fmt::format("{}:{}", str(di.start), str(stop));
      }
      if (term.stride != 1) s += fmt::format(":{}", term.stride);
    } else {
      s = grid_text(di, rank, dense);
    }
    out += (d ? ", " : "") + s;
  }
  return out + "]";
}

// The access `rest` (without the list dim) of a list element, written with the element's name.
std::string Emitter::list_element(const Tensor& t, const Access& rest, bool write) {
  Tensor element = t;
  size_t levels = t.list_levels();
  element.shape.erase(element.shape.begin(), element.shape.begin() + static_cast<long>(levels));
  element.list_loop = -1;
  element.outer_lists.clear();
  if (element.on_chip()) element.partition_dim -= static_cast<int>(levels);
  // An item the kernel binds (Tensor::bound_items) is rebound, never written into.
  if (whole_dims(rest.dims, element.shape)) return write && !t.bound_items ? t.name + "[...]" : t.name;
  std::string out = t.name + "[";
  // Slices only when every dim is one axis (a reshaped item, `ps.reshape((P, 4, P))`, has a dim
  // of two axes: an index grid throughout, slices and grids do not mix).
  bool slices = !k_.dialect.grid_indexing && rest.rank < 0 && affine(rest) &&
                std::all_of(rest.dims.begin(), rest.dims.end(), [](const DimIndex& d) { return d.terms.size() <= 1; });
  size_t rank = rest.tile_shape().size();
  const std::vector<int64_t> dense = dense_shape(rest.tile_shape());
  for (size_t d = 0; d < rest.dims.size(); ++d) {
    const DimIndex& di = rest.dims[d];
    std::string s;
    if (slices && di.terms.size() == 1) {
      const AxisTerm& term = di.terms[0];
      IExpr hi = di.start + term.size * term.stride;
      bool full = di.start == IExpr(0) && term.stride == 1 && hi == element.shape[d];
      s = full ? ":" : fmt::format("{}:{}", str(di.start), str(hi));
    } else {
      s = grid_text(di, rank, dense);
    }
    out += (d ? ", " : "") + s;
  }
  return out + "]";
}

// Every dim of `shape` indexed whole, each by its own axis in order (`t`, `t[...]`, `t[:, :]`).
bool Emitter::whole_dims(const std::vector<DimIndex>& dims, const std::vector<IExpr>& shape) {
  if (dims.size() != shape.size()) return false;
  for (size_t d = 0; d < dims.size(); ++d) {
    const DimIndex& di = dims[d];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d) ||
        di.terms[0].stride != 1 || !di.terms[0].affine() || di.terms[0].size != shape[d])
      return false;
  }
  return true;
}

// A backward slice whose stop is not a number known to be -1 or more: printed as a slice it
// could read as counting from the end, so the access is printed as an index grid.
bool Emitter::backward_stop(const DimIndex& d, const AxisTerm& term) {
  if (term.stride >= 0) return false;
  IExpr stop = d.start + (term.size - 1) * term.stride - 1;
  return !stop.is_constant() || stop.constant() < -1;
}

// Every term plain affine (a quasi-affine one has no slice form).
bool Emitter::affine(const Access& a) {
  for (const auto& d : a.dims)
    for (const auto& t : d.terms)
      if (!t.affine()) return false;
  return true;
}

std::vector<int64_t> Emitter::dense_shape(const std::vector<IExpr>& shape) {
  std::vector<int64_t> dense;
  for (const IExpr& d : shape) {
    if (!d.is_constant()) return {};
    dense.push_back(d.constant());
  }
  return dense;
}

// An index grid operand: its start plus its terms (`128*r + 1 + nl.arange(128)[:, None]`).
std::string Emitter::grid_text(const DimIndex& g, size_t rank, const std::vector<int64_t>& dense) {
  bool zero = g.start.is_constant() && g.start.constant() == 0;
  std::string s = zero && !g.terms.empty() ? "" : str(g.start);
  for (const auto& term : g.terms) s += (s.empty() ? "" : " + ") + grid_term(term, rank, dense);
  return s;
}

std::string Emitter::grid_term(const AxisTerm& t, size_t rank, const std::vector<int64_t>& dense) {
  std::string place;
  for (size_t a = 0; a < rank; ++a) place += (a ? ", " : "") + std::string(static_cast<int>(a) == t.axis ? ":" : "None");
  auto named = t.size.is_constant() && t.affine() && t.stride == 1
                   ? grid_names_.find(grid_key(t.size.constant(), t.axis, rank))
                   : grid_names_.end();
  if (named != grid_names_.end()) return named->second;
  if (t.size.is_constant() && t.affine() && t.stride == 1 && dense.size() == rank && t.axis >= 0 &&
      static_cast<size_t>(t.axis) < rank && dense[static_cast<size_t>(t.axis)] == t.size.constant())
    if (auto name = grid_names_.find(dense_grid_key(dense, t.axis)); name != grid_names_.end()) return name->second;
  std::string g = fmt::format("{}.arange({})[{}]", alias("nki.language"), str(t.size), place);
  if (t.div != 1) g = fmt::format("{} // {}", g, t.div);
  if (t.mod != 0) g = t.div != 1 ? fmt::format("({}) % {}", g, t.mod) : fmt::format("{} % {}", g, t.mod);
  if (t.stride != 1 && !t.affine()) g = "(" + g + ")";
  return t.stride == 1 ? g : fmt::format("{}*{}", t.stride, g);
}

// The author's subscript elements of `written` (one per dim of `a`), when it subscripts the same
// tensor as `old` (what the lift read there) by name, one plain element per dim; else empty.
std::vector<const Expr*> Emitter::written_elements(const Access& a, const std::string& name, const Expr* written,
                                                 const Access* old) const {
  // (A leading integer dim a move dropped, a rotating buffer's slot: unpipeline.cpp, is no more
  // than one.)
  const bool dropped = old && old->dims.size() == a.dims.size() + 1 && old->dims[0].terms.empty();
  if (!o_.authored_dims || o_.regenerate || !written || !old || old->tensor != a.tensor ||
      (old->dims.size() > a.dims.size() && !dropped) || written->kind != ExprKind::Subscript)
    return {};
  const auto& sub = static_cast<const SubscriptExpr&>(*written);
  if (!sub.value || sub.value->kind != ExprKind::Name || static_cast<const NameExpr&>(*sub.value).id != name) return {};
  std::vector<const Expr*> elems;
  if (sub.index->kind == ExprKind::Tuple)
    for (const auto& e : static_cast<const SequenceExpr&>(*sub.index).elts) elems.push_back(e.get());
  else
    elems.push_back(sub.index.get());
  if (elems.size() != old->dims.size()) return {};
  for (const Expr* e : elems) {
    if (e->kind == ExprKind::Starred) return {};
    if (e->kind == ExprKind::Constant && !static_cast<const ConstantExpr&>(*e).value.is_int()) return {};  // None, ...
  }
  return elems;
}

// The author's elements of a shape a move rewrote (Operand::written_shape), `rank` of them; else empty.
std::vector<const Expr*> Emitter::written_dims(const Operand& o, size_t rank) const {
  if (!o_.authored_dims || o_.regenerate || !o.written || !o.written_shape || o.written_shape->size() != rank ||
      (o.written->kind != ExprKind::Tuple && o.written->kind != ExprKind::List))
    return {};
  std::vector<const Expr*> elems;
  for (const auto& e : static_cast<const SequenceExpr&>(*o.written).elts) {
    if (e->kind == ExprKind::Starred) return {};
    elems.push_back(e.get());
  }
  return elems.size() == rank ? elems : std::vector<const Expr*>{};
}

// The same index, or the same once loop variables are named (a copy of a loop, `for t` filling a
// hoisted buffer, has its own id and the author's name): the author's text names it alike.
bool Emitter::same_dim(const DimIndex& now, const DimIndex& was) const {
  if (now == was) return true;
  DimIndex a = now, b = was;
  a.start = IExpr(0), b.start = IExpr(0);
  if (!(a == b)) return false;
  std::string x = k_.str(now.start), y = k_.str(was.start);
  return x == y && x.find('?') == std::string::npos;
}

// The author's `nl.ds(...)` call: its callee as written; "" when the element is not one.
std::string Emitter::ds_callee(const Expr* e) const {
  if (!e || e->kind != ExprKind::Call) return "";
  const auto& c = static_cast<const CallExpr&>(*e);
  const Expr& f = *c.func;
  const bool ds = (f.kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(f).attr == "ds") ||
                  (f.kind == ExprKind::Name && static_cast<const NameExpr&>(f).id == "ds");
  return ds && c.args.size() == 2 && c.keywords.empty() ? source(f) : "";
}

// The source text a span covers (lines joined), with the node's renames.
std::string Emitter::span_text(const Span& s) const {
  if (s.line == 0) return "";
  if (s.line == s.end_line) return renamed(line(s.line).substr(s.col - 1, s.end_col - s.col));
  std::string out = line(s.line).substr(s.col - 1);
  for (uint32_t l = s.line + 1; l < s.end_line; ++l) out += " " + line(l);
  return renamed(out + " " + line(s.end_line).substr(0, s.end_col - 1));
}

// The same code but for spaces and line breaks outside string literals.
bool Emitter::same_code(const std::string& a, const std::string& b) {
  auto squeeze = [](const std::string& t) {
    std::string out;
    char quote = 0;
    for (char c : t) {
      if (quote) {
        out += c;
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == '\\') return std::string();  // a continuation: compared as different
      if (c != ' ' && c != '\t' && c != '\n') out += c;
    }
    return out;
  };
  std::string x = squeeze(a), y = squeeze(b);
  return !x.empty() && x == y;
}

// An unchanged expression of a changed statement, with the node's renames (a loop variable
// after fusion), as a copied statement has them.
std::string Emitter::source(const Expr& e) const {
  const Span& s = e.span;
  if (s.line == 0) throw EmitError("an expression without a source position");
  if (s.line == s.end_line) return renamed(line(s.line).substr(s.col - 1, s.end_col - s.col));
  std::string out = line(s.line).substr(s.col - 1);
  for (uint32_t l = s.line + 1; l < s.end_line; ++l) out += " " + line(l).substr(indent_of(line(l)));
  std::string last = line(s.end_line).substr(0, s.end_col - 1);
  return renamed(out + " " + last.substr(indent_of(last)));
}

}  // namespace loopnest::detail
