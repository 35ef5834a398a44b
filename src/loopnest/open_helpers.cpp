// Opening helper functions: a call of a module helper that does tile work lifts as an Inline node
// whose nodes are frozen (printed only as the call), so no transformation can change what the
// helper computes: a tutorial-style kernel that writes its math in `silu_tile(x)` or loads its
// weight in `load_rhs_tile(w, k, n)` offers no site there. Opened, the helper's nodes become the
// kernel's own at the call, printed from the form (the helper's local names kept, a name the kernel
// also uses renamed, the parameters read as the caller's tiles), and every transformation sees them.
//
// Calls inside a loop open. One that binds its results by name (`y = f(x)`, `a, b = f(x)`, or a bare
// `f(x)`) becomes the helper's nodes. One written inside an expression of the statement
// (`h[...] = nl.multiply(silu(g), u)`) becomes the statement's inner calls evaluated before the
// helper, each named and on its own line, then the helper's nodes with the value it returns named
// (`silu_result`), then the statement reading those names: the same operations in the same order,
// so the helper's work is the kernel's own whatever the author's style of calling it. So does a
// call at the kernel's top level: a library kernel's entry point that checks its inputs and calls
// its implementation (`_impl(x, out, tile_sizes)`) holds all its work in that one call.
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/nest_walk.h"
#include "loopnest/opened_calls.h"
#include "loopnest/transform.h"
#include "nki/ast_printer.h"
#include "nki/ast_walk.h"

namespace loopnest {

namespace {

bool openable(const Node& n) { return openable_kind(n).has_value(); }

// The helper's nodes as the kernel's: unfrozen, printed from the form (their source is the
// helper's text, whose names are not the caller's); bindings of host values and docstrings go
// (their values are in the operands).
// The tensors the nodes define (results, created tiles, views).
void defined(const std::vector<Node>& nodes, std::set<int>& out) {
  for_each_node(nodes, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (op.result >= 0) out.insert(op.result);
      if (is_declaration(op) && op.dst) out.insert(op.dst->tensor);
    }
  });
}

void open_call(Kernel& k, Node& call, std::vector<Node>& out);

// A statement of the opened call (or of a helper statement) printed from the form: `ops`, the last
// its own operation; the source line of `call` stays its origin.
Node statement_of(Kernel& k, const Node& call, std::vector<Op> ops) {
  Node s = new_statement(k, std::move(ops));
  s.origin = call.origin;
  return s;
}

// True when an operation after `i` in `ops` reads what operation `i` made.
bool read_later(const Kernel& k, const std::vector<Op>& ops, size_t i) {
  int t = made_tile(ops[i]);
  if (t < 0 || !k.tensor(t).name.empty()) return false;  // a named result is read by its name
  for (size_t j = i + 1; j < ops.size(); ++j)
    for (const auto& a : ops[j].args)
      if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) return true;
  return false;
}

// A helper statement computing several results (`return a * c - b * s, a * s + b * c`) holds
// several operation trees in one node; printed from the form, a statement is one tree, so each
// result becomes a statement of its own, in the order the helper evaluates them.
void split_results(Kernel& k, Node n, std::vector<Node>& out) {
  if (n.kind != NodeKind::Stmt || n.ops.size() < 2) {
    out.push_back(std::move(n));
    return;
  }
  std::vector<Op> part;
  std::vector<std::vector<Op>> parts;
  for (size_t i = 0; i < n.ops.size(); ++i) {
    part.push_back(n.ops[i]);
    if (i + 1 == n.ops.size() || !read_later(k, n.ops, i)) parts.push_back(std::move(part)), part.clear();
  }
  if (parts.size() == 1) {
    out.push_back(std::move(n));
    return;
  }
  for (auto& p : parts) out.push_back(statement_of(k, n, std::move(p)));
}

// Operations written in a helper's text print from the form: their source names the helper's
// parameters (`axis=axis`), which the kernel does not bind.
void forget_source(std::vector<Op>& ops) {
  for (auto& op : ops) {
    // Text kept as the helper wrote it (a tuple) names the helper's parameters. A mask prints from
    // its constraints once its text is forgotten (`mask=valid`, a name of the helper's, becomes the
    // comparisons it stands for), or not at all when none is left (each held everywhere).
    for (const auto& a : op.args)
      if (a.value.kind == Operand::Kind::Other && a.name != "mask")
        throw TransformError("a helper operand kept as its text");
    op.origin = nullptr;  // origin_api stays: the author's call, so its positional operands print so
    op.dst_origin = nullptr;
    for (auto& a : op.args) a.value.origin = nullptr;
  }
}

// `s_parts.append(nl.sum(part, ...))` of a helper's host list (one item per copy of an unrolled
// loop, read as `s_parts[c]`): the list is the helper's, bound by a statement the kernel does not
// get, so each item is a name of its own (`s_parts_item`, `s_parts_item_2`, ...).
void name_host_list_item(Kernel& k, Node& n) {
  std::string list = appended_list(n);
  if (list.empty() || n.ops.empty() || n.ops.back().result < 0) return;
  Tensor& t = k.tensor(n.ops.back().result);
  if (t.list_loop >= 0) return;  // a block-dim list of a loop: printed as the list it is
  if (t.name.empty()) t.name = fresh_loop_var(k, list + "_item");
  n.origin = nullptr;
}

// `ins = [nl.load(s[...]) for s in srcs]` over a host list (a comprehension run copy by copy, an
// Inline node): its statements make the items `ins[0]`, `ins[1]`, ... of one list. Opened, the
// comprehension's text (reading the helper's `srcs`) cannot be copied: its items become statements
// of the kernel, printed together as the list's display (emit_list_display.cpp), which lifts back
// to those statements.
bool items_of_one_list(const Kernel& k, const Node& n) {
  if (n.kind != NodeKind::Inline || n.helper != kComprehensionHelper || n.body.empty()) return false;
  std::string list;
  for (size_t i = 0; i < n.body.size(); ++i) {
    const Node& s = n.body[i];
    if (s.kind != NodeKind::Stmt || s.ops.empty() || s.ops.back().result < 0) return false;
    auto item = list_item_name(k.tensor(s.ops.back().result).name);
    if (!item || item->second != "[" + std::to_string(i) + "]" || (i > 0 && item->first != list)) return false;
    list = item->first;
  }
  return true;
}

// Every name the header `test` reads is a variable of a loop the condition `n` is on: the header as
// written names the loops opening keeps (a helper's `if jb % 2 == 0:`), not a host value the helper
// bound (`kt = g * 4 + u; if kt == 0:`, whose name may also be some other loop's variable).
bool reads_only_its_loop_variables(const Kernel& k, const Node& n, const nki::Expr& test) {
  std::set<std::string> vars;
  for (const IExpr* e : {&n.cond_l, &n.cond_r})
    for (int id : e->vars()) vars.insert(k.var_name(id));
  bool only = true;
  nki::walk_pruned(test, [&](const nki::Expr& e) {
    if (e.kind == nki::ExprKind::Name && !vars.count(static_cast<const nki::NameExpr&>(e).id)) only = false;
    return true;
  });
  return only;
}

void adopt(Kernel& k, std::vector<Node>& nodes, std::vector<Node>& out) {
  for (auto& n : nodes) {
    if (n.kind == NodeKind::Meta && n.meta != MetaKind::View) continue;
    if (openable(n)) {
      // A call inside the helper (`row_max(scale(t))` passes scale's result on, and the helper's
      // statement reading it is the call's own operations): those are the helper's text too.
      forget_source(n.ops);
      open_call(k, n, out);
      continue;
    }
    if (n.kind == NodeKind::If) {
      // `if D <= MAX_FREE:` on a shape or a module constant: Python chose the branch while tracing,
      // and the branch taken is the helper's code (a `with` directive stays a condition).
      IExpr d = n.cond_l - n.cond_r;
      if (!n.origin || n.origin->kind != nki::StmtKind::If || n.continues)
        throw TransformError("a helper with a condition cannot be opened");
      if (d.is_constant()) {
        adopt(k, holds(d.constant(), n.cond, 0) ? n.body : n.orelse, out);
        continue;
      }
      // A condition on the helper's loop variables (`if jb % 2 == 0:` alternating the engine that
      // evacuates PSUM): it stays a condition of the kernel, its header as written, its branches
      // opened. Its text names the helper's variables; where opening renamed one, the printed kernel
      // does not lift to the form and the move is refused (emit_checked), never printed wrong.
      n.frozen = false;
      n.patch.clear();
      n.renames.clear();
      // A header reading a host value the helper bound (`t = i % n_rt; if t == 0:`) names what the
      // kernel does not bind: the helper's bindings of host values go (their values are in the
      // operands, and here in the condition), so the header prints from the form's condition on the
      // loop variables (`if (i + 1) % 4 == 0:`), which lifts again to the same condition.
      if (!reads_only_its_loop_variables(k, n, *static_cast<const nki::IfStmt&>(*n.origin).test)) {
        n.patch = fmt::format("if {} {} {}:", k.str(n.cond_l), symbol(n.cond), k.str(n.cond_r));
        n.dirty = true;
      }
      std::vector<Node> body = std::move(n.body), orelse = std::move(n.orelse);
      n.body.clear();
      n.orelse.clear();
      adopt(k, body, n.body);
      adopt(k, orelse, n.orelse);
      out.push_back(std::move(n));
      continue;
    }
    n.frozen = false;
    n.dirty = true;
    n.patch.clear();
    n.renames.clear();
    forget_source(n.ops);
    name_host_list_item(k, n);
    std::vector<Node> body = std::move(n.body);
    n.body.clear();
    adopt(k, body, n.body);
    if (items_of_one_list(k, n)) {
      for (auto& item : n.body) out.push_back(std::move(item));
      continue;
    }
    split_results(k, std::move(n), out);
  }
}

// The function an Inline node calls: its `helper` up to the first comma.
std::string called_function(const std::string& helper) { return helper.substr(0, helper.find(',')); }

// The stem of the name given to a helper's result: the helper's name up to its first comma,
// without leading underscores and with what is not an identifier character dropped, so a lambda
// (`<lambda>`) gives `lambda_result`, never a name Python cannot parse.
std::string result_base(const std::string& helper) {
  std::string base;
  for (char c : called_function(helper))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') base += c;
  base.erase(0, base.find_first_not_of('_'));
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) return "helper";
  return base;
}

// `a_tiles.append(load_block(a, ...))`: the helper's result is the iteration's element of the
// kernel's list (a list tensor, Tensor::list_name); opened, the helper's nodes make it under its
// own name and the append of that name follows them (the call statement, which did the append,
// is gone).
void append_result(Kernel& k, const Node& call, std::vector<Node>& opened) {
  std::string list = appended_list(call);
  if (list.empty()) return;
  std::set<int> made;
  defined(opened, made);
  for (int t : made) {
    const Tensor& tensor = k.tensor(t);
    if (tensor.list_name != list || tensor.list_loop < 0) continue;
    Access element = whole_of(k, t);
    std::vector<int> loops;
    for (const auto& outer : tensor.outer_lists) loops.push_back(outer.second);
    loops.push_back(tensor.list_loop);
    for (size_t d = 0; d < loops.size(); ++d) element.dims[d] = {IExpr::var(loops[d]), {}};
    for (size_t d = loops.size(); d < element.dims.size(); ++d)
      element.dims[d].terms[0].axis = static_cast<int>(d - loops.size());
    Node n;
    n.kind = NodeKind::Meta;
    n.meta = MetaKind::Append;
    n.id = k.next_node++;
    n.dirty = true;
    n.binds = {list};
    n.view = element;
    opened.push_back(std::move(n));
    return;
  }
  throw TransformError("a helper result appended to a list that is not one tile per iteration");
}

// `return launch[grid](x, y)` / `return _impl(x)` of the kernel's top level: opened, the call's
// statement is gone, so the kernel returns what the helper returned (the kernel's outputs) by
// name after the helper's nodes. A launched function's decorator goes to the kernel's def when it
// has none (Dialect::decorate): the wrapper is the traced kernel now.
void return_result(Kernel& k, const Node& call, std::vector<Node>& out) {
  if (!call.origin || call.origin->kind != nki::StmtKind::Return) return;
  if (!static_cast<const nki::ReturnStmt&>(*call.origin).value) return;
  std::string names;
  for (int t : k.outputs) {
    if (k.tensor(t).name.empty()) throw TransformError("a helper returning an unnamed output");
    names += (names.empty() ? "" : ", ") + k.tensor(t).name;
  }
  if (names.empty()) throw TransformError("a returned helper call whose result is not the kernel's output");
  Node r = new_statement(k, {});
  r.kind = NodeKind::Meta;
  r.meta = MetaKind::Return;
  r.patch = "return " + names;
  out.push_back(std::move(r));
  for (const auto& s : k.module->body) {
    if (s->kind != nki::StmtKind::FunctionDef) continue;
    const auto& def = static_cast<const nki::FunctionDefStmt&>(*s);
    if (def.code->name == called_function(call.helper) && def.decorators.size() == 1)
      k.dialect.decorate = nki::print_expr(*def.decorators.front());
  }
}

// The values a helper returns without naming them (`return (x0 * c - x1 * s, x0 * s + x1 * c)`
// read by the caller as `for rows, tile in zip(halves, rotate(...))`): opened, each is a statement
// of its own (split_results) read by statements outside it, so each gets a name
// (`rotate_result`, `rotate_result2`). A statement's value no other opened statement reads is
// such a value (or dead: then the name costs nothing); one read within the opened nodes is printed
// inside its reader's tree.
void name_returned_values(Kernel& k, const Node& call, std::vector<Node>& opened) {
  std::set<int> read;
  for_each_node(opened, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops)
      for (const auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) read.insert(a.value.access.tensor);
  });
  for (const Node& n : opened) {
    if (n.kind != NodeKind::Stmt || n.ops.empty()) continue;
    int t = n.ops.back().result;
    if (t < 0 || !k.tensor(t).name.empty() || read.count(t)) continue;
    k.tensors[static_cast<size_t>(t)].name = fresh_loop_var(k, result_base(call.helper) + "_result");
  }
}

// The helper's nodes in place of the call; a call inside an expression of the statement (it has
// operations of its own) is split as the header says. Names for the values the statement's
// remaining operations read from the parts before them, and those reads print the names instead
// of the call's text.
void open_call(Kernel& k, Node& call, std::vector<Node>& out) {
  if (call.ops.empty()) {
    std::vector<Node> opened;
    adopt(k, call.body, opened);
    if (openable_kind(call) == InlineKind::HelperCall) name_returned_values(k, call, opened);
    append_result(k, call, opened);
    for (auto& x : opened) out.push_back(std::move(x));
    return_result(k, call, out);
    return;
  }
  size_t split = std::min(call.inline_split, call.ops.size());
  std::set<int> named;
  auto name = [&](int t, const std::string& base) {
    if (t < 0 || !k.tensor(t).name.empty()) return;
    k.tensors[static_cast<size_t>(t)].name = fresh_loop_var(k, base);
    named.insert(t);
  };
  for (size_t i = 0; i < split; ++i) {
    // A tile loaded as an argument is named after what it holds (`cos_tile`).
    const Op& op = call.ops[i];
    const Arg* src = op.cls == OpClass::Load ? op.arg("src") : nullptr;
    bool named_source = src && src->value.kind == Operand::Kind::Tile && !k.tensor(src->value.access.tensor).name.empty();
    name(op.result, named_source ? k.tensor(src->value.access.tensor).name + "_tile" : "inner_result");
    out.push_back(statement_of(k, call, {call.ops[i]}));
  }
  std::vector<Node> helper;
  adopt(k, call.body, helper);
  std::set<int> made;
  defined(helper, made);
  std::string base = result_base(call.helper);
  std::vector<Op> rest(call.ops.begin() + static_cast<long>(split), call.ops.end());
  for (const auto& op : rest)
    for (const auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && made.count(a.value.access.tensor))
        name(a.value.access.tensor, base + "_result");
  // Every read of what the parts before made prints its name, not the text of the call: a result
  // the helper had named already (`t` of `t = nl.load(...); return t`) as well as one named here.
  for (auto& op : rest)
    for (auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && (named.count(a.value.access.tensor) || made.count(a.value.access.tensor)))
        a.value.origin = nullptr;
  // The values the statement's own operations do not read may still be read by the statements
  // after it (`for rows, tile in zip(halves, rotate(...))`: each copy of the loop's body reads one).
  name_returned_values(k, call, helper);
  for (auto& x : helper) out.push_back(std::move(x));
  // `a, b = rotate(x, nl.load(c))`: every operation of the statement is an argument evaluated
  // before the helper, so nothing reads the helper's results in the statement itself.
  if (!rest.empty()) out.push_back(statement_of(k, call, std::move(rest)));
}

// The names the calling statement binds (`g` of `g = project(...)`, `a, b` of `a, b = f(x)`): the
// caller's own, which its other statements (copied as written) read.
std::set<std::string> call_binds(const Node& call) {
  std::set<std::string> out;
  if (!call.origin || call.origin->kind != nki::StmtKind::Assign) return out;
  for (const auto& t : static_cast<const nki::AssignStmt&>(*call.origin).targets)
    if (t) names_of(*t, out);
  return out;
}

// A helper's local name that the kernel also uses gets a fresh one (`t` -> `t_2`); the names the
// call binds stay (the kernel already binds them there, as the author wrote: `g = project(...)` in
// two nests is two tiles named `g`, each read by its own nest's statements).
//
// The copies of a host loop (`copies`: a loop the trace unrolls, lifted as one Inline node) rebind
// the kernel's own names, as Python runs them: the last copy's tile under each name is what the
// statements after the loop read (copied as written), so it keeps the name (even where a tile of
// the kernel's had it before the loop: Python rebinds it, and nothing after reads the old one), and
// the earlier copies' tiles are the ones renamed.
void rename_clashes(Kernel& k, const std::vector<Node>& nodes, const std::set<std::string>& bound, bool copies,
                    const std::vector<int>& around) {
  std::set<int> mine;
  defined(nodes, mine);
  std::map<std::string, int> last;  // a name -> the last tile of the copies bound under it
  if (copies)
    for (int id : mine)
      if (!k.tensor(id).name.empty()) last[k.tensor(id).name] = std::max(last[k.tensor(id).name], id);
  std::set<std::string> kernel_names;  // the kernel's own tiles and parameters
  for (const auto& t : k.tensors)
    if (!mine.count(t.id) && !t.name.empty()) kernel_names.insert(t.name);
  for (const auto& p : k.params) kernel_names.insert(p.name);
  std::set<std::string> taken = kernel_names;
  for (const auto& [id, l] : k.loops) taken.insert(l.var);
  for (const auto& [name, id] : last) taken.insert(name);
  std::map<int, std::string> list_was;  // a list of fresh tiles of the copies -> its name before
  for (int id : mine) {
    Tensor& t = k.tensor(id);
    if (t.name.empty() || bound.count(t.name)) continue;
    if (t.host_list && t.list_loop < 0) list_was[id] = t.list_name;
    if (t.name.find('[') != std::string::npos) continue;  // a list's item: renamed with the list, below
    if (auto l = last.find(t.name); l != last.end() && l->second == id) continue;
    if (!taken.count(t.name)) {
      taken.insert(t.name);  // a second tile of the helper's under this name is another one
      continue;
    }
    const std::string was = t.name;
    t.name = fresh_copy_name(k, t.name, taken);
    taken.insert(t.name);
    // A list of fresh tiles (`carry = [nl.zeros(...) for _ in range(S)]`) prints its items and
    // its declaration by the list's name: renamed with it.
    if (t.host_list && t.list_loop < 0 && t.list_name == was) t.list_name = t.name;
  }
  // An item bound by item assignment (`totals[g] = nl.add(totals[g], ...)`, named `totals[0]`):
  // the item of the copy's own list, the last one of that name made before it.
  for (int id : mine) {
    Tensor& t = k.tensor(id);
    const auto item = list_item_name(t.name);
    if (!item) continue;
    for (auto it = list_was.rbegin(); it != list_was.rend(); ++it) {
      if (it->first >= id || it->second != item->first) continue;
      t.name = k.tensor(it->first).list_name + item->second;
      break;
    }
  }
  // So does a loop variable of the helper that names a kernel parameter or tile (`for k in
  // range(4)` in a helper of `kernel(q, k, v)`): opened in the kernel's loop, it would rebind the
  // parameter for the kernel's next iteration.
  // And one that an enclosing loop's variable already names (`_loop(n, f)` calling itself
  // through a lambda: both levels `for t in ...`): opened, the inner `t` would hide the outer one
  // from every statement under it. Python's frames kept them apart; the kernel's one scope cannot.
  for_each_node(nodes, [&](const Node& n, const std::vector<int>& inside) {
    if (n.kind != NodeKind::Loop) return;
    Loop& l = k.loops.at(n.loop);
    bool shadows = false;
    for (const auto* loops : {&around, &inside})
      for (int o : *loops) shadows = shadows || (o != n.loop && k.loops.at(o).var == l.var);
    if (kernel_names.count(l.var) || shadows) l.var = fresh_loop_var(k, l.var + "_idx");
  });
}

// An opened SPMD launch (its program ids the kernel's loops, Loop::program): the HBM tensors the
// launched function declares are one for all programs (NKI's shared HBM, as the output it returns:
// nki-language.md's SPMD launch), and a view of a parameter (`x2 = x.reshape((M, K))`) is the same
// in every program; in the loop as Python reads it they would be one per program (the output of
// the last one returned). They go before the outermost program loop, in their order, so a move
// that takes a load out of the programs still finds the view it reads. `scope`: the loop around
// the nest.
void pull_out_of_programs(Kernel& k, std::vector<Node>& nodes, int scope) {
  std::vector<Node> out;
  for (auto& n : nodes) {
    if (n.kind != NodeKind::Loop || !k.loops.at(n.loop).program) {
      out.push_back(std::move(n));
      continue;
    }
    std::set<int> programs{n.loop};
    Node* inner = &n;
    while (inner->body.size() == 1 && inner->body[0].kind == NodeKind::Loop && k.loops.at(inner->body[0].loop).program) {
      inner = &inner->body[0];
      programs.insert(inner->loop);
    }
    std::set<int> pulled_tensors;
    auto invariant_base = [&](int t) {
      return k.tensor(t).scope_loop < 0 || !programs.count(k.tensor(t).scope_loop) || pulled_tensors.count(t);
    };
    std::vector<Node> kept;
    for (auto& m : inner->body) {
      bool pull = false;
      if (m.kind == NodeKind::Meta && m.meta == MetaKind::View && m.view && 
          std::none_of(programs.begin(), programs.end(), [&](int p) { return uses_loop(*m.view, p); })) {
        const Tensor& t = k.tensor(m.view->tensor);
        pull = t.role == TensorRole::View ? invariant_base(t.base) : invariant_base(t.id);
        if (pull) pulled_tensors.insert(m.view->tensor);
      } else if (m.kind == NodeKind::Stmt && m.ops.size() == 1 && is_declaration(m.ops[0]) && m.ops[0].dst) {
        Tensor& t = k.tensor(m.ops[0].dst->tensor);
        pull = t.memory == Memory::Hbm;
        for (const auto& d : t.shape) pull = pull && d.is_constant();
        if (pull) {
          t.scope_loop = scope;
          pulled_tensors.insert(t.id);
        }
      }
      (pull ? out : kept).push_back(std::move(m));
    }
    inner->body = std::move(kept);
    out.push_back(std::move(n));
  }
  nodes = std::move(out);
}

}  // namespace

// A comprehension over a host sequence unpacked into names, one per item (`x0, x1 = [nl.load(x[r,
// cols]) for r in (lo, hi)]`): the statement is the statements `x0 = nl.load(...)`, `x1 = ...`,
// which print from the form and lift back to the same items. Opened, the moves see straight-line
// statements (a partition fill of the halves) where they saw one construct.
bool unpacked_comprehension(const Node& n) {
  if (n.kind != NodeKind::Inline || n.helper != kComprehensionHelper || !n.ops.empty() || !n.origin ||
      n.origin->kind != nki::StmtKind::Assign)
    return false;
  const auto& assign = static_cast<const nki::AssignStmt&>(*n.origin);
  if (assign.targets.size() != 1 || !assign.value || assign.value->kind != nki::ExprKind::ListComp) return false;
  const nki::Expr& target = *assign.targets[0];
  if (target.kind != nki::ExprKind::Tuple && target.kind != nki::ExprKind::List) return false;
  const auto& names = static_cast<const nki::SequenceExpr&>(target).elts;
  if (names.size() != n.body.size()) return false;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i]->kind != nki::ExprKind::Name || n.body[i].kind != NodeKind::Stmt || n.body[i].ops.empty() ||
        n.body[i].ops.back().result < 0)
      return false;
  return true;
}

// The lifter names the Inline node of an unrolled host loop by its keyword (lift_loop.cpp,
// lift_host.cpp); a helper call's by the function's name, which no keyword can be.
std::optional<InlineKind> openable_kind(const Node& n) {
  if (unpacked_comprehension(n)) return InlineKind::HostSequenceFor;
  if (n.kind != NodeKind::Inline || n.helper.find(kComprehensionHelper) != std::string::npos) return std::nullopt;
  if (n.helper == "while") return InlineKind::TraceTimeWhile;
  if (n.helper == "for") return InlineKind::HostSequenceFor;
  return InlineKind::HelperCall;
}

int open_helpers(Kernel& k) {
  std::vector<OpenedCall> calls;
  return open_helpers_recording(k, calls);
}

int open_helpers_recording(Kernel& k, std::vector<OpenedCall>& calls) {
  int opened = 0;
  std::vector<int> around;  // the loops around the block being walked, outermost first
  std::function<void(std::vector<Node>&, int)> walk = [&](std::vector<Node>& block, int scope) {
    std::vector<Node> out;
    for (auto& n : block) {
      if (!openable(n)) {
        if (!n.frozen) {
          if (n.kind == NodeKind::Loop) around.push_back(n.loop);
          walk(n.body, n.kind == NodeKind::Loop ? n.loop : scope);
          if (n.kind == NodeKind::Loop) around.pop_back();
          walk(n.orelse, scope);
        }
        out.push_back(std::move(n));
        continue;
      }
      std::vector<Node> nodes;
      OpenedCall record{n, {}};
      open_call(k, n, nodes);
      const bool copies = openable_kind(n) != InlineKind::HelperCall;
      rename_clashes(k, nodes, call_binds(n), copies, around);
      pull_out_of_programs(k, nodes, scope);
      for (auto& x : nodes) {
        record.ids.push_back(x.id);
        out.push_back(std::move(x));
      }
      calls.push_back(std::move(record));
      ++opened;
    }
    block = std::move(out);
  };
  walk(k.body, -1);
  return opened;
}

}  // namespace loopnest
