// The lifter's internals (private to src/loopnest): abstract values of the kernel's Python and the
// class that walks the AST. lift.h is the interface.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "loopnest/form.h"
#include "loopnest/lift.h"

namespace loopnest::detail {

// The pending entry of a comprehension lifted as a loop (lift_rolled.cpp): its one node is the loop,
// which the statement binding the list becomes (ops_node).
inline constexpr const char* kComprehensionLoop = "<comprehension loop>";

// An index grid: base + sum of coef * a over its axes, in a grid of `ndim` dims (numpy aligns
// grids of fewer dims to the right). ndim 0: a 1-D nl.arange not yet placed by [:, None].
struct Grid {
  struct Axis {  // coef * ((a // div) % mod), mod 0: no remainder (AxisTerm)
    int64_t coef = 1;
    IExpr size;
    int64_t div = 1;
    int64_t mod = 0;
    bool affine() const { return div == 1 && mod == 0; }
  };
  IExpr base;
  std::multimap<int, Axis> axes;  // one position may carry several terms (`(i % 4) * 256 + i // 4`)
  int ndim = 0;
  // An nl.mgrid component is dense, as numpy's: every grid has the whole shape (`nisa.iota(i_f)`
  // of `i_p, i_f = nl.mgrid[0:128, 0:384]` is (128, 384)), where an arange broadcasts. Empty
  // for an arange; kept through arithmetic.
  std::vector<IExpr> dense;
};

struct AValue {
  enum class K : uint8_t {
    Unknown, None, Bool, Int, Float, Str, Ellipsis, Module, Func, Method, Symbol, DType, Tile, Grid, Tuple, List,
    Slice, ParDim, Range, Pred, Cond, HostArray, Dict, Partial, Class, Instance, Set,
    Iterator,  // iter(seq): items are what it has left (a value: next() rebinds the name holding it)
  };
  K k = K::Unknown;
  IExpr i;            // Int, ParDim
  double f = 0;       // Float
  bool b = false;     // Bool
  std::string s;      // Str text; Module / Func canonical path; Symbol ("buffer:sbuf", "engine:vector"); DType; Method name
  std::string type;   // Float: dtype of a typed numpy scalar
  Access access;      // Tile
  Grid grid;          // Grid
  std::vector<AValue> items;     // Tuple, List; Slice: lo, hi, step (None when absent); Range: start, stop, step;
                                 // HostArray: its shape; Dict: its values
  std::vector<AValue> keys;      // Dict: its keys (strings, constant integers, bools), in insertion order
  std::shared_ptr<AValue> self;  // Method: its object; Partial: its function (items: the bound positional
                                 // arguments as a tuple, then the bound keywords as a dict)
  std::vector<Constraint> pred;  // Pred (a mask)
  IExpr cl, cr;                  // Cond: cl cmp cr (a comparison of loop-dependent integers)
  Cmp cmp = Cmp::Lt;
  LoopKind range_kind = LoopKind::Range;
  bool range_dynamic = false;  // nl.dynamic_range (Loop::dynamic)
  // Instance (s: its class): its attributes, shared by every copy of the value (Python objects are
  // references: what a method sets through `self` the caller sees). Func of a function defined
  // inside a helper: the helper's names it closes over (null: a module-level function, or a
  // closure of the kernel, which sees the kernel's names at the call).
  std::shared_ptr<std::map<std::string, AValue>> attrs;
  // List of a comprehension over a constant range (`[(k0, min(128, K - k0)) for k0 in range(0, K,
  // 128)]`), or an enumerate of one: its item as an expression of the item's index, the variable
  // kHostIndex (checked equal to every item). A host loop over it can then lift as a loop.
  std::shared_ptr<AValue> per_item;
  // Tile chosen per iteration against a number (`0.0 if blk == 0 else carry`): the number (Int or
  // Float), taken where cl cmp cr holds (Operand::number_when).
  std::shared_ptr<AValue> instead;
  // Tile of an HBM view indexed by a tile (`x[idx, i_f]`, an indirect DMA's rows): the index tile.
  // `access` then has the gathered tile's shape (the gathered dim's term as if the index tile were
  // an arange of its partitions); only a DMA's source takes it, as a gather (Lifter::apply).
  std::shared_ptr<AValue> gather;

  static AValue of_int(IExpr v) { AValue a; a.k = K::Int; a.i = std::move(v); return a; }
  static AValue of_float(double v, std::string type = "") { AValue a; a.k = K::Float; a.f = v; a.type = std::move(type); return a; }
  static AValue of_bool(bool v) { AValue a; a.k = K::Bool; a.b = v; return a; }
  static AValue of_kind(K k, std::string s = "") { AValue a; a.k = k; a.s = std::move(s); return a; }
  static AValue of_tile(Access acc) { AValue a; a.k = K::Tile; a.access = std::move(acc); return a; }
  static AValue of_tuple(std::vector<AValue> items) { AValue a; a.k = K::Tuple; a.items = std::move(items); return a; }
};

// Python's truth of a value the lift knows on the host (a bool, a constant int, a float, None, a
// string, a tuple, list, set or dict); none for a loop-dependent int, a tile or anything else.
std::optional<bool> host_truth(const AValue& v);
// A host number as a double (an int, a bool, a float); NaN for anything else (lift_builtins.cpp).
double number_of(const AValue& v);
// A mask term that is no index grid's comparison: a bool, or a comparison of loop variables
// (K::Cond; `k_0 * U + k_1 < S`, a generated kernel's guard of a ragged outer tile), as a
// constraint on no axis that holds for all of an iteration's elements or for none; nullopt for
// True (no constraint) (lift_operators.cpp).
std::optional<Constraint> loop_mask_term(const AValue& term);
// Item `index` of a host sequence whose items step alike, for an index the loops give within it
// (lift_subscript.cpp); nullopt when the items do not step alike.
// Given the kernel, also the blocks of a flattened list in order (`probs_t[t]` of `[... for j in
// range(J) for c in range(C)]`, lift_flat_rolled.cpp): block (f // C, f % C) for the flat index f.
std::optional<AValue> progression_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg,
                                       const Kernel* k = nullptr);
// The same over a list of lists of tiles, position by position (a row of a nested comprehension).
std::optional<AValue> progression_list_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg);
// Block `index` (one start per leading block dim) of the list tensor `t`, whole.
Access list_block(const Tensor& t, const std::vector<IExpr>& index);
// The rows of a list of lists of tiles held as one tensor `t` with two block dims (a nested
// comprehension's, an appended comprehension's): row i the list of blocks (i, j), each whole.
std::vector<AValue> block_rows(const Tensor& t, int64_t rows, int64_t cols);

// The placeholder variable of AValue::per_item: no loop has this id.
constexpr int kHostIndex = 1 << 28;

// A dict key the form can hold (a string, a bool or a constant integer), and `d[key] = value` in
// Python's dict order (lift_host.cpp).
bool hashable_key(const AValue& v);
void dict_put(AValue& d, const AValue& key, const AValue& value);
// A break or continue in the block (nested blocks included).
bool has_jump(const nki::Block& b);
// `if c: ...; continue` (or `...; break`) whose other statements hold no break / continue of the loop
// (lift_stmt.cpp).
bool guard_continue(const nki::IfStmt& s);
// Every break / continue of the loop whose body is `b` (not of a loop nested in it) ends the body of
// an `if` at the top of it (guard_continue), or of one at the top of such an if's else branch.
bool guard_continues_only(const nki::Block& b);
// Python source for a host value, nullopt for a tile, a grid, a loop-dependent integer (lift_fold.cpp).
std::optional<std::string> py_literal(const AValue& v);
// The string an f-string makes of its fields' values (Python sources, py_literal), formatted by the
// language core (conversions and format specs as Python's); nullopt when formatting fails.
std::optional<AValue> format_fstring(const nki::FStringExpr& f, const std::vector<std::optional<std::string>>& fields);

class Lifter {
 public:
  // bound_as: the module-level name the run finds the kernel by (KernelChoice::attribute).
  Lifter(std::shared_ptr<const nki::ModuleAst> module, const std::vector<ArgSpec>& args, const nki::FunctionCode& kernel,
         int nc_version, const std::string& bound_as);
  Kernel run();
  bool adopt_launches = true;  // lift's Launch: a wrapper's one SPMD launch is the form (adopt_launch)

  // ---- errors ----
  [[noreturn]] void fail(const nki::Span& at, const std::string& what) const;

  // ---- expressions (lift_expr.cpp) ----
  AValue eval(const nki::Expr& e);
  AValue eval_node(const nki::Expr& e);  // eval without the trace-time fold
  // eval_node's cases of one expression kind each: a subscript (lift_subscript.cpp), the operators
  // (lift_operators.cpp).
  AValue subscript_value(const nki::Expr& e);
  AValue unary_value(const nki::Expr& e);
  AValue binop_value(const nki::Expr& e);
  AValue compare_chain(const nki::Expr& e);
  AValue boolop_value(const nki::Expr& e);
  // The value of a host expression computed by the language core (lift_fold.cpp); nullopt when the
  // expression reads anything but host values or its value is not one.
  std::optional<AValue> host_fold(const nki::Expr& e);
  // A try statement, or a loop with break / continue, of host code run by the language core on the
  // host values it reads (lift_fold.cpp): binds what it binds, pushes a node keeping it as written;
  // the value a `return` inside it returned, nullopt when it runs to its end. Fails naming what it
  // reads that is not a host value (a tile it works on, a loop-dependent value, a function).
  std::optional<AValue> host_statement(const nki::Stmt& s, std::vector<Node>& out);
  std::optional<std::string> tile_stand_in(const AValue& tile) const;
  std::string binary_result_dtype(const std::string& api, const Op& op) const;
  bool merge_fresh_tiles(std::vector<AValue>& items, std::vector<Node>& item_nodes);
  AValue comprehension(const nki::ComprehensionExpr& c);
  AValue cond_join(const AValue& a, const AValue& b, bool is_and);  // lift_operators.cpp
  AValue compare(const AValue& l, nki::CmpKind op, const AValue& r, const nki::Expr& le, const nki::Expr& re,
                 const nki::Expr& e);
  IExpr int_of(const nki::Expr& e);  // an integer-valued expression
  IExpr int_of(const AValue& v, const nki::Expr& at);
  std::vector<IExpr> shape_of(const AValue& v, const nki::Expr& at, int* partition_dim = nullptr);
  // `gather`: where an index tile (an indirect DMA's rows) is accepted, it is set to that tile;
  // null: an index tile is refused by name.
  Access subscript(const Access& base, const nki::Expr& index, const nki::Expr& at,
                   std::shared_ptr<AValue>* gather = nullptr);
  void check_in_bounds(const IExpr& lo, const IExpr& hi, const IExpr& size, const nki::Expr& at, const char* what);
  void check_access(const Access& a, const nki::Expr& at);
  int guarded = 0;  // inside branches of loop-dependent conditions: accesses may be out of range when not taken
  std::vector<IExpr> tile_shape(const Access& a) const { return a.tile_shape(); }
  Access whole(int tensor) const;
  bool whole_access(const Access& a) const;

  // A dict's value for `key` (null when absent); a host sequence's items (a constant range, a
  // tuple, a list, a dict's keys) or null.
  const AValue* dict_get(const AValue& dict, const AValue& key) const;
  std::optional<std::vector<AValue>> host_items(const AValue& v) const;
  AValue dict_display(const nki::DictExpr& d);
  // Python sets of host values (tile indices to process): `set(...)`, `{a, b}`, set comprehensions,
  // - | & ^ and their augmented forms, issubset / issuperset / isdisjoint / union / intersection /
  // difference. Items are kept in insertion order, each once.
  AValue make_set(const std::vector<AValue>& items, const nki::Expr& at) const;
  std::optional<AValue> set_binary(const AValue& a, nki::BinOp op, const AValue& b, const nki::Expr& at) const;
  AValue set_method(const AValue& set, const std::string& name, const std::vector<AValue>& pos, const nki::CallExpr& c);
  AValue lambda(const nki::LambdaExpr& l);
  // functools.partial / reduce; nullopt for another function.
  // map / filter / iter / next of host sequences (lift_iterables.cpp); nullopt for another function.
  std::optional<AValue> iterable_call(const std::string& fn, const std::vector<AValue>& pos,
                                      const std::vector<const nki::Expr*>& pos_exprs, const nki::CallExpr& c);
  // A function value called with positional arguments as `f(*pos)` would be: the kernel's own
  // functions and lambdas inlined, a class constructed, builtins / math / numpy folded, an NKI API
  // applied (lift_iterables.cpp). `at` is where the arguments came from (for messages).
  AValue call_value(AValue f, std::vector<AValue> pos, const nki::Expr& at, const nki::CallExpr& c);
  std::optional<AValue> functools_call(const std::string& fn, const std::vector<AValue>& pos,
                                       const std::vector<std::pair<std::string, AValue>>& kw, const nki::CallExpr& c);
  AValue dict_method(const AValue& dict, const std::string& name, const std::vector<AValue>& pos, const nki::CallExpr& c);
  // zip / enumerate / sorted / reversed of host sequences; nullopt for another function.
  std::optional<AValue> host_sequence_call(const std::string& fn, const std::vector<AValue>& pos,
                                           const std::vector<std::pair<std::string, AValue>>& kw, const nki::CallExpr& c);

  // ---- calls (lift_call.cpp) ----
  AValue call(const nki::CallExpr& c);
  // A call evaluated while tracing (lift_builtins.cpp): Python builtins, math / numpy on host
  // values, ranges and index grids; nullopt for another function.
  std::optional<AValue> host_call(const std::string& fn, const std::vector<AValue>& pos,
                                  const std::vector<const nki::Expr*>& pos_exprs,
                                  const std::vector<std::pair<std::string, AValue>>& kw, const nki::CallExpr& c);
  // An NKI API applied to bound arguments (calls and Python operators on tiles).
  AValue apply(const std::string& api, std::vector<std::pair<std::string, AValue>> args,
               std::vector<std::pair<std::string, const nki::Expr*>> origins, const nki::Expr& at,
               const nki::CallExpr* origin);
  AValue access_pattern(const AValue& self, const std::vector<AValue>& pos,
                        const std::vector<std::pair<std::string, AValue>>& kw, const nki::CallExpr& c);
  // A newer-API view method (permute, select, reshape_dim, ...) of a tile (lift_views.cpp).
  AValue view_method(const AValue& self, const std::string& name, const std::vector<AValue>& pos,
                     const std::vector<std::pair<std::string, AValue>>& kw, const nki::CallExpr& c);
  // The whole of a view of `base`'s elements in `shape` (a reshape: same memory, dtype, order).
  AValue reshaped_view(int base, std::vector<IExpr> shape);
  // Axes s..e of HBM access `a` merged into one affine axis over a view with the tensor dims they
  // walk merged, when those dims are contiguous (lift_views.cpp); nullopt otherwise.
  std::optional<AValue> contiguous_merge(const Access& a, int s, int e);
  // The op the statement's root call produced (for retargeting `t[i] = call(...)`).
  std::vector<Op>* current_ops = nullptr;

  // ---- statements (lift_stmt.cpp; assignments lift_assign.cpp, calls of the module's functions
  // lift_inline.cpp, the setup and the driver lift.cpp) ----
  void block(const nki::Block& b, std::vector<Node>& out);

  Kernel k;
  std::vector<int> loop_stack;
  std::map<std::string, AValue> env;
  // Names an `if` on loop variables bound to a different tile in each branch (lift_stmt.cpp), with
  // the tile the name stands for after it (the else branch's): a statement reading it through the
  // name is frozen, as is the `if`, since the form holds one of the two tiles where either flows.
  std::map<std::string, int> branch_bound;
  bool reads_branch_bound = false;  // the statement being lifted read such a name
  std::map<std::string, AValue> globals;
  std::shared_ptr<const nki::ModuleAst> module;
  const nki::FunctionCode* fn = nullptr;
  int grid_statements = 0, slice_statements = 0;  // index styles seen (the dialect)
  int block_writes = 0, name_writes = 0;          // destination styles seen

  std::set<std::string> positional_;  // parameters the call being lifted passes by position

  // Module-level helper functions the kernel calls; their tile work is inlined (NodeKind::Inline).
  std::map<std::string, const nki::FunctionCode*> helpers;
  std::set<std::string> closures;  // helpers defined inside the kernel
  // The scopes of the functions the helpers being inlined defined (AValue::attrs), refreshed with
  // the helper's names when it returns.
  std::vector<std::shared_ptr<std::map<std::string, AValue>>> closure_scopes;
  void factory_scope(const std::string& bound_as);
  std::map<std::string, nki::Diagnostic> module_refusals;  // module-level names whose value did not lift
  // The default values of a closure's parameters, evaluated where the def runs (Python binds a
  // default once, in the enclosing scope: `def f(t, *, alpha=slope)` reads the kernel's `slope`).
  std::map<std::string, std::map<std::string, AValue>> closure_defaults;
  // Evaluates the defaults of `code`'s parameters into closure_defaults[name], in the scope the
  // def or lambda runs in; a default computing a tile is refused (no host value).
  void record_closure_defaults(const std::string& name, const nki::FunctionCode& code);
  struct PendingInline {
    std::string name;
    std::vector<Node> nodes;
    size_t ops_before = 0;
  };
  std::vector<PendingInline> pending_inline;
  // The comprehension a statement unpacks into names as it is made (`a, b = [nl.ndarray(...) for
  // ...]`, or the argument of `tuple(...)` / `list(...)` there): its fresh tiles stay one tensor per
  // item, each named by its target, instead of one tensor with the items along a dim the text
  // never names. A comprehension returned by a helper the statement calls is not it.
  const nki::Expr* unpacked_comprehension = nullptr;
  int inline_depth = 0;
  // The kernel's own names while helpers are inlined (the outermost call's caller scope), and how
  // many module-level helper frames are active: a closure of the kernel called from inside a
  // module helper (`_grid(GM, GN, body)` calling `body(i, j)`) sees the kernel's names, as
  // Python's closures do, not the helper's.
  std::map<std::string, AValue>* kernel_env = nullptr;
  int module_frames = 0;
  // grid: the SPMD launch grid of `f[g0, g1](...)` (its sizes), empty for a plain call. The
  // launch lifts as parallel loops over the program ids around the helper's body.
  AValue inline_call(const nki::FunctionCode& code, std::vector<AValue> pos,
                     std::vector<std::pair<std::string, AValue>> kw, const nki::CallExpr& c,
                     const std::vector<AValue>& grid = {}, const std::map<std::string, AValue>* captured = nullptr);
  // An f-string one of whose fields is a loop-dependent value (`f"tile_{i}"`).
  bool varies_per_iteration(const nki::Expr& fstring);
  bool depends_on_loops(const AValue& v) const;  // an Int or Grid using a loop variable (not a program id)
  std::vector<int> program_loops;  // the loop of each program id of the enclosing launch grid
  std::map<int, std::string> program_names;  // program loop -> the name its id was first bound to
  std::vector<IExpr> program_sizes;
  // The SPMD launches the kernel function makes at its top level (`f[grid](...)` outside loops and
  // helpers): the launched function, its nodes as its own body (its `return` a node, no grid loop
  // nodes) and the loops of its program ids. run() makes a lone launch the form (Kernel::grid).
  struct Launch {
    const nki::FunctionCode* code = nullptr;
    std::vector<Node> body;
    std::vector<int> grid;
    std::vector<std::pair<std::string, AValue>> params;  // its parameters as the launch binds them
  };
  std::vector<Launch> launches;
  void adopt_launch();

  // ---- classes of the module (lift_class.cpp): instances with attributes, __init__ and methods
  // inlined, properties and setters, @dataclass fields, class attributes (IntEnum members) ----
  struct ClassInfo {
    const nki::ClassDefStmt* def = nullptr;
    bool dataclass = false;
    std::vector<std::pair<std::string, const nki::Expr*>> fields;  // @dataclass: name, default (or null)
    std::map<std::string, const nki::Expr*> attrs;                // class attributes
    std::set<std::string> properties;
  };
  std::map<std::string, ClassInfo> classes;
  void declare_class(const nki::ClassDefStmt& def);
  AValue construct(const AValue& cls, std::vector<AValue> pos, std::vector<std::pair<std::string, AValue>> kw,
                   const nki::CallExpr& c);
  AValue class_attr(const std::string& cls, const std::string& name, const nki::Expr& at);
  AValue instance_attr(const AValue& obj, const std::string& name, const nki::Expr& at);
  void set_instance_attr(const AValue& obj, const std::string& name, const AValue& v, const nki::Expr& at);
  AValue call_method(const AValue& obj, const std::string& name, std::vector<AValue> pos,
                     std::vector<std::pair<std::string, AValue>> kw, const nki::CallExpr& c);

  int new_tensor(Tensor t);
  // A kernel argument bound to a parameter (or to an item of a *args tuple) named `name`.
  AValue bind_argument(const ArgSpec& a, const std::string& name);
  Node new_node(NodeKind kind, const nki::Stmt& origin);
  // `loop` registered in k.loops under a free id (transform.h's add_loop: ids a restored
  // checkpoint freed may still be held), returned as registered. A copy, not a reference: a
  // rollback reassigns k.loops.
  Loop new_loop(Loop loop);
  Ranges ranges() const { return k.ranges(); }

  void bind_target(const nki::Expr& target, const AValue& v);

 private:
  void host_while(const nki::WhileStmt& s, std::vector<Node>& out);
  // One copy of a while body whose break / continue sit under ifs decided at trace time
  // (`while True: if r >= M: break`): the statements Python runs lifted into `out`; 1 when a
  // break ends the loop, 2 when a continue ends the copy, 0 otherwise (lift_loop.cpp).
  int host_jump_block(const nki::Block& b, std::vector<Node>& out);
  void host_for(const nki::ForStmt& s, const AValue& items, std::vector<Node>& out);
  // The host loop as a loop of the form when its items are one expression of their index
  // (AValue::per_item) and the target names the index (`for c, (k0, kn) in enumerate(chunks)`);
  // false (nothing changed) when it does not lift that way.
  bool host_for_as_loop(const nki::ForStmt& s, const AValue& items, std::vector<Node>& out);
  // The host loop over blocks of one list tensor in order (`for t in chunks[1:]`) whose body carries
  // a tile (`m = nl.maximum(m, nl.max(t, ...))`) as one loop of the form over the block index
  // (lift_item_loop.cpp); false (nothing changed) when it does not lift that way.
  bool host_for_as_item_loop(const nki::ForStmt& s, const AValue& items, std::vector<Node>& out);
  void statement(const nki::Stmt& s, std::vector<Node>& out);
  void name_program_loop(const std::string& id, const AValue& v);
  void name_program_loops();
  void assign(const nki::AssignStmt& s, std::vector<Node>& out);
  // `target = v` writing the region `dst`: the statement's operation making `v` writes it directly
  // (true), or a copy does (false).
  bool write_value(std::vector<Op>& ops, const AValue& v, const Access& dst, const nki::Expr& target,
                   const nki::Expr* value);
  // `st = {"max": nl.max(t, axis=1), "sum": nl.sum(t, axis=1)}` (or a tuple or list display of
  // calls): every tile item an operation's fresh result, known by the item's text (`st['max']`). The
  // statement is frozen (printed as written: the form prints no statement making several results);
  // false (nothing changed) for any other value.
  bool display_of_results(const nki::AssignStmt& s, const std::string& id, const AValue& v, std::vector<Op>& ops,
                          std::vector<Node>& out);
  // `a, b = op(x), op(y)`: a tuple display of new tiles unpacked into fresh names (lift_assign.cpp).
  bool unpacked_results(const nki::AssignStmt& s, const nki::Expr& target, const AValue& v, std::vector<Op>& ops,
                        std::vector<Node>& out);
  // `a, b = nl.add(a, t), nl.add(b, t)` rebinding names the loop carries (lift_assign.cpp).
  bool unpacked_carried(const nki::AssignStmt& s, const nki::Expr& target, const AValue& v, std::vector<Op>& ops,
                        std::vector<Node>& out);
  void aug_assign(const nki::AugAssignStmt& s, std::vector<Node>& out);
  void for_loop(const nki::ForStmt& s, std::vector<Node>& out);
  // for_loop is lifting a static_range as one loop, its copies being the fallback (set for that
  // loop's own statement only: a static_range nested in its body gets its own fallback).
  bool unrolling_static = false;
  void if_stmt(const nki::IfStmt& s, std::vector<Node>& out);
  // The if node of a test already evaluated (`t`), its branches lifted by then_part / else_part:
  // names bound differently by the two merged as an `a if c else b` (lift_stmt.cpp).
  Node if_node(const nki::IfStmt& s, AValue t, const std::function<void(std::vector<Node>&)>& then_part,
               const std::function<void(std::vector<Node>&)>& else_part);
  // A loop's body whose `if c: ...; continue` statements (guard_continue) take the statements after
  // them as their else branch (Node::continues); any other statement as Lifter::block lifts it.
  void loop_body(const std::vector<const nki::Stmt*>& stmts, std::vector<Node>& out);
  void loop_body(const nki::Block& b, std::vector<Node>& out);  // a loop statement's whole body
  // The loop of the form whose body for_loop is lifting, for the top level of that body only: an
  // `if c: ...; break` there ends the loop after the first iteration where c holds (stop_at_break);
  // -1 elsewhere (a break in the rest after a continue guard, or in a loop that is not the form's).
  int break_loop = -1;
  // The contents of every instance's attributes (and closure scope) reachable from the names, to
  // put back after a throw-away lift (lift_attrs.cpp).
  struct AttrsSnapshot {
    std::vector<std::pair<std::shared_ptr<std::map<std::string, AValue>>, std::map<std::string, AValue>>> maps;
  };
  AttrsSnapshot save_attrs() const;
  void restore_attrs(const AttrsSnapshot& s);
  // Each binding of a list of None's buffer (by tensor id): the loops around it and the digits
  // (loop, coefficient, trip) numbering the item it binds, which say in which iteration each item
  // is first bound (lift_none_reads.cpp).
  struct NoneBinding {
    std::vector<int> loops;
    std::vector<std::tuple<int, int64_t, int64_t>> digits;
  };
  // The conditions on loop variables around the statement being lifted (if_node), each with the
  // truth its branch has: which iterations reach a read.
  struct Guard {
    IExpr l, r;
    Cmp cmp = Cmp::Eq;
    bool holds = true;
  };
  // What a lift of some statements changes in the lifter, to put back when that lift is thrown away
  // (a static_range tried as one loop, a host loop tried as a loop of the form, a loop with break /
  // continue tried as host code): the form, the names, the attribute maps and the style counts.
  struct Checkpoint {
    Kernel k;
    std::map<std::string, AValue> env;
    std::vector<int> loop_stack;
    std::vector<PendingInline> pending_inline;
    std::map<int, size_t> list_ranks;
    std::map<std::string, size_t> list_depth;
    std::map<std::string, int> number_loop;
    std::map<std::string, int> branch_bound, carried;
    AttrsSnapshot attrs;
    std::map<int, std::vector<NoneBinding>> none_bindings;
    std::vector<Guard> guards;
    int grid_statements, slice_statements, block_writes, name_writes, guarded, inline_depth;
  };
  Checkpoint checkpoint() const;
  void rollback(const Checkpoint& c);
  // A comprehension of one tile per index bound to a name, lifted as the loop it means
  // (lift_rolled.cpp): the statement `name = [...]` (assign), the comprehension and the name.
  const nki::Stmt* assigned_statement = nullptr;
  const nki::Expr* assigned_comprehension = nullptr;
  std::string assigned_name;
  // What the copies lifted one by one have in common (nullopt: they differ, no roll).
  struct RollShape {
    int64_t count = 0;
    std::vector<std::string> apis;
    std::vector<IExpr> shape;
    std::string dtype;
    Memory memory = Memory::Sbuf;
    int partition_dim = 0;
  };
  std::optional<RollShape> roll_shape(const std::vector<AValue>& items, std::vector<Node>& item_nodes);
  // The loop node (pending_inline, kComprehensionLoop) and the list of its blocks; fails (LiftError)
  // where the element lifted once does not give the copies' statement.
  // `over`: the items of the list the comprehension walks (null: a range from 0 by 1), which must
  // step alike (progression_item), the target then bound to the loop's item.
  // `generator`: the one the loop is over (1: the inner of a flattened two-clause comprehension).
  AValue roll_comprehension(const nki::ComprehensionExpr& c, const RollShape& shape, LoopKind kind,
                            const std::vector<AValue>* over, size_t generator = 0);
  // `[<tile of j, c> for j in range(J) for c in range(C)]` (lift_flat_rolled.cpp): the loop nest over
  // one list tensor of two block dims whose Python list is its blocks in row-major order.
  AValue roll_flat_comprehension(const nki::ComprehensionExpr& c, const RollShape& shape, LoopKind kind);
  // A nested comprehension (lift_nested_rolled.cpp): every row the same RollShape, and the loop nest
  // over a list tensor with two block dims.
  std::optional<RollShape> nested_roll_shape(const std::vector<AValue>& items, std::vector<Node>& item_nodes);
  // `carry[s] = h[:, w - 1:w]` in a loop, carry a list of fresh tiles: a write of its block
  // (lift_bound_fresh.cpp); false where the old rule applies.
  bool bind_fresh_item(const nki::AssignStmt& s, const nki::SubscriptExpr& target, const AValue& v,
                       std::vector<Op>& ops, std::vector<Node>& out);
  // `buf[i] = tile` / `h_t[r][b] = tile` in loops, the list bound `[None] * N` / `[[None] * B for _
  // in range(T)]`: a write of its block of one buffer (lift_none_list.cpp); false where the old rule applies.
  bool bind_none_item(const nki::AssignStmt& s, const nki::SubscriptExpr& target, const AValue& v,
                      std::vector<Op>& ops, std::vector<Node>& out);
  // Names bound to a list (of lists) of None -> the innermost loop around that binding and its inline depth.
  struct NoneList {
    int scope_loop = -1;
    int depth = 0;
  };
  std::map<std::string, NoneList> none_lists;
  void note_none_list(const std::string& id, const AValue& v);
  std::map<int, std::vector<NoneBinding>> none_bindings;  // NoneBinding above
  // A read of `item` (written `at`) of such a buffer inside the loops binding it: refused where an
  // iteration reads an item a later iteration binds first, which Python reads as None.
  void check_none_item_read(const AValue& item, const nki::Expr& at) const;
  std::vector<Guard> guards;  // Guard above: innermost last
  AValue roll_nested_comprehension(const nki::ComprehensionExpr& c, int64_t rows, const RollShape& row_shape,
                                   LoopKind kind);
  // The row level of a comprehension rolled over two levels (nested or flattened): generator
  // `generator` of `inner` rolled as a loop into the outer loop node `n`, which it then closes (the
  // loop stack popped, the outer variable `var` bound again to `outer`); the row's list tensor.
  // `what` names the comprehension in errors.
  Tensor& roll_row(const nki::ComprehensionExpr& inner, const RollShape& row_shape, LoopKind kind, size_t generator,
                   Node& n, const std::string& var, const std::optional<AValue>& outer, const char* what);
  // A loop of the form whose body changed an attribute it reads before setting: refused by name.
  void check_carried_attrs(const nki::ForStmt& s, const AttrsSnapshot& before);
  bool carried_attr_refused = false;  // check_carried_attrs refused the loop being lifted
  // The body of the loop being lifted read a host value that differs per iteration (a Python int
  // updated by `+=`, a function or dtype chosen by a condition on the loop variable): one loop of
  // the form cannot hold it, the copies the trace runs can (for_loop).
  mutable bool per_iteration_host_refused = false;  // set by const checks too (check_not_alias_of_carried)
  // Whether the block assigns an attribute (`obj.x = ...`, `obj.x += ...`) or calls a method of an
  // instance of the kernel's names (which may set one through self).
  bool sets_attributes(const nki::Block& b) const;
  bool may_vary_per_iteration(const nki::Block& b) const;
  // The loop `id` ends after its first iteration where `l c r` holds: its stop becomes an expression
  // of the outer loops' variables, checked against the condition on every value they take.
  void stop_at_break(int id, const IExpr& l, Cmp c, const IExpr& r, const nki::Span& at);
  // A for loop holding break / continue: host code run at trace time (host_statement), or, when it
  // does tile work and its continues only guard the rest of its body, a loop of the form. The value
  // a `return` inside it returned; nullopt when it ran to its end or lifted as a loop.
  std::optional<AValue> jump_loop(const nki::ForStmt& s, std::vector<Node>& out);
  void with_block(const nki::WithStmt& s, std::vector<Node>& out);
  void import(const nki::ImportStmt& s);
  bool depends_on(const AValue& v, int loop) const;
  std::vector<Op> append(const nki::CallExpr& c);
  // `x_t.append([...])` whose comprehension rolled as its loop in the appending loop (the pending
  // kComprehensionLoop, `row` its list of blocks): the outer block dim over the appending loop
  // (lift_appended_rows.cpp).
  std::vector<Op> appended_rows(const nki::CallExpr& c, const std::string& list, const AValue& row);
  DimIndex backward_slice(const AValue& v, const IExpr& dim, int64_t step, const nki::Expr& at, int axis);
  AValue sequence_slice(const AValue& base, const nki::SliceExpr& sl, const nki::Expr& e);
  void finish_lists(std::vector<Node>& body);
  std::map<int, size_t> list_ranks;  // list tensors -> their rank before the list's block dim
  // The tensor of a list appended one tile per iteration of a loop (Lifter::append: one tensor with
  // a block dim over the loop, held as the list's single item), or null for any other value.
  const Tensor* list_tensor(const AValue& v) const;
  // Lists bound empty (`cols = []`) -> the loop depth of that binding: appended at the same depth,
  // the list is a host list of that iteration's values (a Python list the trace unrolls), not a
  // tile per iteration of a loop.
  std::map<std::string, size_t> list_depth;
  // Names bound to a Python number -> the innermost loop of the form around that binding (-1: none).
  // Updated (`off += w`) directly in that loop's body, the number is host code of one iteration (a
  // column offset walked by a host while loop inside a tile loop), the same in every iteration;
  // updated in another loop, it differs per iteration.
  std::map<std::string, int> number_loop;
  // Host counters (`count += 1`, `tcount[0] += 1` of a list, a helper's `nonlocal`) bumped since the
  // innermost loop of the form began its body: the name, or `name[i]` of a list's item -> the first
  // bump's statement. A loop whose body bumps one lifts it as an induction variable (lift_counter.cpp).
  std::map<std::string, const nki::Stmt*> bumped_cells;
  void bump_cell(const std::string& cell, const nki::Stmt& at) { bumped_cells.emplace(cell, &at); }
  // Takes the bumps so far aside (a loop's body or a call starts afresh) and puts them back with
  // those made since however the scope ends (a refusal caught by a retry keeps them).
  struct BumpScope {
    Lifter& l;
    std::map<std::string, const nki::Stmt*> outer;
    explicit BumpScope(Lifter& l) : l(l), outer(std::exchange(l.bumped_cells, {})) {}
    ~BumpScope() { l.bumped_cells.insert(outer.begin(), outer.end()); }
  };
  // Loop node `n` (loop `loop`, its body lifted once from `at_body`): the counters its body bumps
  // bound to their value at each iteration's start and the body lifted again, each left after the
  // loop at its value then; refused by name where the bumps cannot be counted.
  // `tcount[0] += 1` of an int item of a list the kernel (or the closure's kernel) binds by name, at
  // a constant index: the item updated and the bump recorded; false for anything else.
  bool counter_item(const nki::AugAssignStmt& s, const nki::SubscriptExpr& target, const AValue& list,
                    const AValue& by, bool no_ops, std::vector<Node>& out);
  // At the end of a call of `code`: the items of lists it bumped written back where the list is the
  // kernel's (a closure's free name: Python's list is one object), refused through a parameter (the
  // caller's list, which the lift does not alias); the bumps of names it declares nonlocal / global
  // kept for the enclosing loops; those of its own locals dropped.
  void keep_counter_bumps(const nki::FunctionCode& code, const std::set<std::string>& declared_outer,
                          bool free_names_are_kernels,
                          std::map<std::string, AValue>* defining_env, const nki::CallExpr& c);
  void count_bumps(const nki::ForStmt& s, const Loop& loop, Node& n, const Checkpoint& at_body,
                   const std::map<std::string, const nki::Stmt*>& cells);
  void note_binding_depth(const std::string& id, const AValue& v);
  bool same_binding(const AValue& a, const AValue& b) const;
  const nki::Block* decided_branch_returning(const nki::IfStmt& s);
  // The names (the first one) the loop body reads before rebinding them while they hold a tile or a
  // number: values carried between iterations through a Python name (a static_range unrolls over
  // them; an affine or sequential loop carries a tile as a buffer, carry_buffers).
  std::optional<std::string> carried_value(const nki::Block& body, const std::string& var) const;
  void list_item_assign(const nki::AssignStmt& s, const nki::SubscriptExpr& sub, const AValue& v, std::vector<Op>& ops,
                        std::vector<Node>& out);
  std::optional<std::string> first_iteration_binding(const nki::Block& body, const std::string& var) const;
  std::vector<std::string> carried_values(const nki::Block& body, const std::string& var) const;
  // A carried name bound to a host number before the loop that the first iteration rebinds to a
  // tile (`carry = 0.0`, then `carry = h[:, w - 1:w]`): the binding made a tile filled with the
  // number and the loop lifted as one loop carrying it (lift_host_carry.cpp); false: nothing changed.
  bool carry_from_host_number(const nki::ForStmt& s, const AValue& first_item, std::vector<Node>& out);
  // ---- names carried through an affine / sequential loop (lift_carry.cpp) ----
  // The loop `s` carries `names` from one iteration to the next (`acc = nl.add(acc, t)`): each must
  // hold a whole tile declared on chip before the loop (nl.zeros / nl.full / nl.ndarray), which the
  // form then holds as that buffer, every rebinding in the body a write into it (a read-modify-write
  // the dependence analysis sees). Returns name -> tensor; fails naming the name otherwise.
  std::map<std::string, int> carry_buffers(const nki::ForStmt& s, const std::vector<std::string>& names);
  // `name = value` for a carried name: `root` (the statement's operation making `v`, or null when
  // the statement makes none: `m = m_new`) writes the buffer instead; a copy when there is none.
  void rebind_carried(const nki::AssignStmt& s, const std::string& name, const AValue& v, Op* root,
                      std::vector<Op>& ops);
  // A name bound to the tile a carried name holds (`old = m`): refused, since the buffer changes
  // under it where Python's name would keep the old tile.
  void check_not_alias_of_carried(const nki::Expr& target, const AValue& v) const;
  std::map<std::string, int> carried;  // carried names of the loops being lifted -> their buffer
  // A tuple of tiles carried through one name (`state = (nl.add(state[0], t), ...)`) is carried
  // item by item, each item a buffer entered in `carried` under the key `name[i]` (no Python name
  // has brackets). The keys of `name`'s items, empty when it carries no tuple.
  std::vector<std::string> carried_items(const std::string& name) const;
  // One statement rebinding carried tiles by a display of tiles (`a, b = nl.add(a, t), nl.add(b, t)`
  // or `state = (op0, op1)`): keys[i] the carried key item i rebinds ("" for a fresh name).
  // Python evaluates every item before binding any, so each item's operation writes its buffer
  // only where no later operation of the statement reads that buffer; otherwise refused. The
  // statement is one node, frozen (printed as written), its writes the loop's carried dependence.
  void rebind_carried_items(const nki::AssignStmt& s, const std::vector<std::string>& keys, const AValue& v,
                            std::vector<Op>& ops, std::vector<Node>& out);
  // ---- lists of numbers a loop fills with tiles by item assignment (lift_filled_list.cpp) ----
  // `carry = [0.0] * S` before a loop whose body reads `carry[s]` and binds `carry[s] = tile`: a
  // value carried from one iteration to the next through a list item. The list is one on-chip
  // buffer with a block dim over its items (Tensor::host_list, bound_items), read as the number in
  // the iterations before its first binding (Operand::number_when) and as the item's tile after.
  struct ItemShape {
    std::vector<IExpr> shape;
    std::string dtype;
    Memory memory = Memory::Sbuf;
    IExpr index;              // the item the body binds (of its loop variables)
    bool one_index = true;    // every binding names that item
  };
  struct FilledList {
    int tensor = -1;
    int loop = -1;          // the outermost loop that binds its items
    int depth = 0;          // inline_depth of the scope naming it
    AValue number;          // the items' value before their first binding
    IExpr index;            // the item every iteration binds, before it is bound: reads name it
    std::optional<IExpr> bound_at;  // the item index bound so far in this pass over the body
    bool done = false;      // the loop has ended: the list's items are the loops' last tiles
  };
  std::map<std::string, FilledList> filled;
  // Probing a loop body (a copy of the lifter, thrown away): the shape of the first tile bound to an
  // item of each list, by name.
  std::map<std::string, ItemShape>* fill_probe = nullptr;
  // Registers the lists of numbers the loop's body fills (probing the body for their tiles' shape);
  // returns their names.
  std::vector<std::string> fill_lists(const nki::ForStmt& s);
  // `name[index]` of such a list: its item's tile (with the number where it is not bound yet); in a
  // probe, the number. Nullopt when `name` is no such list.
  std::optional<AValue> read_filled(const std::string& name, const AValue& base, const AValue& index, const nki::Expr& at);
  // `name[index] = v` of such a list; false when `name` is no such list.
  bool bind_filled(const nki::AssignStmt& s, const nki::SubscriptExpr& target, const AValue& v, std::vector<Op>& ops,
                   std::vector<Node>& out);
  // Drops the names the loop `loop` (re)bound to values depending on it (env before it: `before`).
  void forget_loop_bindings(const std::map<std::string, AValue>& before, int loop);
  Node ops_node(const nki::Stmt& s, std::vector<Op> ops);
  void push_meta(const nki::Stmt& s, MetaKind meta, std::vector<Node>& out);  // a statement kept verbatim
};

// An abstract value as an operand of an operation.
Operand to_operand(Lifter& lifter, const AValue& v, const nki::Expr* origin);
// The op of `ops` whose result (or created tensor) `v` denotes whole, or null.
Op* producer(std::vector<Op>& ops, const AValue& v, const Kernel& k);

// Canonical module path of an import ("neuronxcc.nki.language" -> "nki.language"); "" if unknown.
std::string canonical_module(const std::string& dotted);
// Short API name of a canonical function path ("nki.isa.activation" -> "nisa.activation").
std::string short_api(const std::string& path);
// The value of `attr` of the module `path` (canonical, "nki.language"): a submodule, a dtype, a
// buffer, an engine, a tile-size constant, or else the function `path.attr`. Attributes and
// names imported from the module (`from neuronxcc.nki.language import tile_size, psum`) alike.
AValue module_attr(const std::string& path, const std::string& attr);

}  // namespace loopnest::detail
