// Transformations on the loop-nest form. Each finds its sites on a lifted kernel, with legality
// decided from dependences on the form (analysis.h), and applies one site by changing the form;
// the result is printed back in the kernel's own style and checked to lift to exactly the
// changed form (emit.h). Sites are described in style-independent terms (the move's parameters
// and the anchor op's signature), so the same nest written in another style offers the same sites.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "loopnest/analysis.h"
#include "loopnest/arg_spec.h"
#include "loopnest/form.h"

namespace loopnest {

struct TransformError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Site {
  std::string transform;                      // "fold_silu", "coarsen", ...
  std::map<std::string, std::string> params;  // the move, without positions: factor=2, engine=gpsimd
  std::string anchor;                         // op_signature of the anchor op (analysis.h)
  std::string summary;                        // what changes, with the kernel's names
  int node = -1;                              // the anchor node's id in this lift
  int line = 0;                               // the anchor statement's source line
  // Where the move saves time, found on the form (not part of the key): `relieves` holds the engine
  // families ("dma", "pe", "dve", "act", "pool") of the operations it runs fewer times (shares,
  // hoists), `feeds` those of the other operations reading what they produce (which wait on them).
  // Empty when the transformation does not say: the planner then uses its own table.
  std::set<std::string> relieves, feeds;
  // The engine families whose instructions the move makes the kernel run more of, with the ratio
  // after / before (nest_walk.h work_change; not part of the key either: a style's extra copy
  // instruction changes the ratio, not the move).
  std::map<std::string, double> adds;
  std::string key() const;                    // "transform anchor k=v ...": the same in every style
};

using Action = std::function<void()>;
// Receives each site with the action applying it; returns true to stop (the action ran).
using SiteSink = std::function<bool(const Site&, const Action&)>;

class Transform {
 public:
  virtual ~Transform() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  std::vector<Site> find(const Kernel& k) const;
  // Whether its sites change tile sizes: find_sites then drops a site whose result would exceed a
  // hardware tile limit (limit_violation), so no evaluation is spent on it.
  virtual bool resizes_tiles() const { return false; }
  // Whether it moves work between engines rather than removing some: at the copies of a statement
  // (jam_rows' rows) the balance may lie between one copy moved and all, so one copy's site stays
  // beside the site moving every copy (places.cpp); a move removing work is offered at all of them.
  virtual bool balances_engines() const { return false; }
  // Applies the site (found on a lift of the same source): changes `k`. Throws TransformError.
  void apply(Kernel& k, const Site& site) const;

 protected:
  // Reports every site of `k` with its action; returns true when the sink asked to stop.
  virtual bool visit(Kernel& k, const SiteSink& sink) const = 0;
};

const std::vector<std::unique_ptr<Transform>>& transforms();
const Transform* find_transform(const std::string& name);

// The first hardware tile limit (trn/tile_limits.h) the kernel exceeds, as the interpreter would
// refuse it: more than 128 partitions, a PSUM tile over one bank, a matmul operand too wide
// (limits.cpp). nullopt when none.
std::optional<std::string> limit_violation(const Kernel& k);

// How many `//` / `%` index pieces the kernel's accesses hold (quasi-affine terms of tile axes and
// of starts; unflatten's tests count them). What a transformation must not add is a kind of them
// (quasi_affine_kinds, result_refusal).
int quasi_affine_terms(const Kernel& k);
// The kinds of those pieces (`//4`, `%2`, an axis split `a//128%4`), whatever they apply to.
std::set<std::string> quasi_affine_kinds(const Kernel& k);

// What a transformed kernel is measured against: whether the kernel kept the hardware limits, and
// the kinds of its `//` / `%` index terms.
struct ResultBaseline {
  bool within_limits = true;
  std::set<std::string> quasi_kinds;
};
ResultBaseline baseline_of(const Kernel& k);
// Why a transformation's result is refused however it prints, as the end of a sentence naming the
// site (": the hardware would refuse it: ...", " would add a `//` ..."): a hardware limit the
// kernel kept and the result breaks, or a kind of `//` / `%` index term it adds. Removes the result's dead
// buffers first. The listing (find_sites, on a copy) and apply_site ask the same question, so no
// site is listed that applying refuses. nullopt when the result stands.
std::optional<std::string> result_refusal(const ResultBaseline& before, Kernel& after);

// Splits every flattened loop (`for t in range(R * NJ)` read only through `t // NJ` and `t % NJ`)
// into its nest, t_blk over R around t_in over NJ; the statements naming t, or a name computed
// from it, are printed over the new loops and those bindings dropped (unflatten.cpp). Returns how
// many loops it split.
int unflatten_loops(Kernel& k);
// Splits every loop whose variable is read whole and as `i // G` (G dividing its trip: the query
// heads of a KV group) into `for i // G: for i % G:`, `i` bound again from them, when work then
// reads only the outer variable (group_split.cpp). Returns how many loops it split; `inner_vars`
// gets the inner loops' variables.
int split_groups(Kernel& k, std::vector<std::string>* inner_vars);
int split_group_loops(Kernel& k);
// The hoists (hoist, hoist_expand, hoist_compute, hoist_transpose) of `grouped` (split_groups'
// result; `inner_vars` its group loops) that move work out of a group loop, found by `sites`.
std::vector<Site> group_hoist_sites(const Kernel& grouped, const std::vector<std::string>& inner_vars,
                                    std::vector<Site> (*sites)(const Kernel&));
// Puts every hand-written software pipeline's prefetch (`buf[(j + 1) % 2] = nl.load(...)` under
// `if j + 1 < N:`, a prologue loading tile 0) back into its own iteration, the rotating buffer one
// tile per iteration (unpipeline.cpp). Returns how many loops it undid.
int unpipeline_loops(Kernel& k);
// Loop node `id`, run in order, written as affine_range where its iterations commute (affine_loop.cpp);
// false when it stays.
bool write_affine(Kernel& k, int id);
// Drops the bindings in `body` computed from loop variable `var` (transitively) and marks every node
// naming them to print from the form; false (k then partly changed: try it on a copy) when a node
// cannot be printed from the form (unflatten.cpp).
bool print_over_new_loops(Kernel& k, std::vector<Node>& body, const std::string& var);
// Opens the calls of module helper functions inside loops (open_helpers.cpp): their nodes become
// the kernel's own, printed from the form in place of the call. Returns how many it opened.
int open_helpers(Kernel& k);
// `k` printed and lifted again (TransformError when it does not print back): a clean form for the
// next of several moves applied as one, since the printer keeps the author's text of the nodes a
// move did not mark, which a second move of the same nodes would print wrongly.
Kernel reprinted(const Kernel& k);
// The kernel's own arguments as a lift of it takes them (the arrays at their shapes, the scalars the
// task passed); nullopt when an array's shape is not constant. A source edited by a move is lifted
// again on them.
std::optional<std::vector<ArgSpec>> own_arguments(const Kernel& k);

// Why the helpers the kernel calls in its loops cannot be opened (open_helpers, then printed back
// and lifted again on the kernel's own arguments): the first error; nullopt when they open or there
// are none.
std::optional<std::string> helpers_stay_closed(const Kernel& k);
// The constructs open_helpers opens, by kind: a helper function's call, and the two loops the
// kernel's Python unrolls while tracing, kept as one Inline node (a `while` on host values, a
// `for` over a host sequence). A note about them names the construct it is about.
enum class InlineKind : uint8_t { HelperCall, TraceTimeWhile, HostSequenceFor };
// What an Inline node opens as; nullopt for a node open_helpers leaves as written (not Inline, or
// a comprehension computing tiles).
std::optional<InlineKind> openable_kind(const Node& n);
struct ClosedInlines {
  std::set<InlineKind> kinds;  // the constructs that would have opened
  int line = 0;                // the first one's line
  std::string why;             // helpers_stay_closed's reason
};
// helpers_stay_closed with what stays closed, typed.
std::optional<ClosedInlines> inlines_stay_closed(const Kernel& k);
// "the helpers called in its loops", "the trace-time while loop at line 42", ...: what the note names.
std::string describe(const ClosedInlines& c);
// Every site of every transformation. On a kernel calling helpers in its loops, also the sites that
// only the kernel with its helpers opened offers, with the parameter helpers=open (apply_site opens
// them first; the printed kernel has their code in place of the calls).
std::vector<Site> find_sites(const Kernel& k);
// Lifts `text` (the function `entry` names, as `eval --entry`; "" = the file's default:
// kernel_definition), applies `site` (matched by node id, or by anchor and parameters when the id
// no longer names it) and prints the kernel back, checked. Throws TransformError / LiftError.
// `nc_version`: the target whose nisa.get_nc_version() the lift takes (2 trn1, 3 trn2), the run's.
std::string apply_site(const std::string& path, const std::string& text, const std::vector<ArgSpec>& args,
                       const Site& site, const std::string& entry = "", int nc_version = 2);
// The same with the transformation given (apply_site above finds it by the site's name). Refuses a
// result with a kind of `//` / `%` index term the kernel did not have (quasi_affine_kinds).
std::string apply_site(const Transform& t, const std::string& path, const std::string& text,
                       const std::vector<ArgSpec>& args, const Site& site, const std::string& entry = "",
                       int nc_version = 2);
// `text` with every site of the transformation `name` applied, one after the other (each found on
// the kernel the one before printed) until none is left: e.g. every loop affine_loop may rewrite.
// Throws like apply_site.
std::string apply_every_site(const std::string& name, const std::string& path, std::string text,
                             const std::vector<ArgSpec>& args, const std::string& entry = "", int nc_version = 2);

// ---- helpers for transformations ----
Site make_site(const Kernel& k, const Analysis& an, const OpRef& anchor, std::string summary,
               std::map<std::string, std::string> params = {});
// Fills `s.relieves` / `s.feeds` from the operations a move runs fewer times (declarations do no
// work and count for nothing): their engines, and the engines of the other operations reading what
// they write.
void note_relief(const Kernel& k, const Analysis& an, const std::set<const Op*>& fewer, Site& s);
// A site on the loop node `loop`: anchored at the loop's first operation, reported at the loop
// itself (its node and line). None when the loop holds no operation.
std::optional<Site> make_loop_site(const Kernel& k, const Analysis& an, const Node& loop, std::string summary,
                                   std::map<std::string, std::string> params = {});
// The operand `name` of `op` (null when it has none), its symbol ("" when it is not one).
const Operand* operand(const Op& op, const char* name);
std::string symbol_of(const Op& op, const char* name);
// The activation function an `nl.*` unary call computes (`nl.exp(x)` -> "exp"), "" if none (fold.cpp).
std::string nl_activation_function(const Op& op);
// New operands and arguments of rewritten operations.
Operand symbol(const std::string& s);
Operand number_operand(double v);
// An operand reading the tile `a` names (no source expression: printed from the access).
Operand tile_operand(const Access& a);
Arg arg(const std::string& name, Operand value, bool output = false);
// The tensor `op` writes whole: its result, or the whole on-chip buffer it writes
// destination-first (the newer API's `dst=`); -1 otherwise (a slice, HBM, an accumulation).
int written_whole(const Kernel& k, const Op& op);
// Every operation of node `n` and of the nodes below it, in program order.
void ops_of(Node& n, std::vector<Op*>& out);
// Moves the first `count` ops of the statement block[position] (its leading inner calls) into a
// statement of their own inserted before it; the last of them is that statement's operation.
void split_leading_ops(Kernel& k, std::vector<Node>& block, size_t position, size_t count);
// Whether `text` names `name` as a whole word (not inside a longer identifier).
bool names_word(const std::string& text, const std::string& name);
// Whether the source of node `n` names `name` as a whole word (a binding a transformation wrote:
// its text).
bool mentions(const Kernel& k, const Node& n, const std::string& name);
// Removes the node with id `id` wherever it is; false when there is none.
bool erase_node(Kernel& k, int id);
Node* find_node(Kernel& k, int id);
// Ids of the loops a transformation may change (every loop not frozen), outermost first. Ids, not
// pointers: a transformation applied at one site moves nodes, so each is found again by id.
std::vector<int> open_loop_ids(Kernel& k);
// `like` with another API and main arguments; keeps its destination, mask, dtype and engine.
Op rebuild(const Op& like, const std::string& api, std::vector<Arg> args);
// A rebuilt nisa.* instruction without dtype= writes its first tile operand's dtype (the lift's rule,
// lift_call.cpp Lifter::apply): where the op's result has another (a comparison folded into an
// instruction whose data is float32 gives bool), says it with dtype=, so the print-back lifts to the
// form the move made.
void say_result_dtype(const Kernel& k, Op& op);
// A new statement of `ops` (inner calls first, its own operation last), printed from the form.
Node new_statement(Kernel& k, std::vector<Op> ops);
// The binding `var = outer * block + inner` that a loop split in two (a strip-mine: chunks, blocks,
// groups) puts first in the inner loop's body, so the body as written still reads its old index.
Node split_index_binding(Kernel& k, const std::string& var, const std::string& outer, const std::string& block,
                         const std::string& inner);
// `nl.zeros(shape, dtype=nl.float32, buffer=<memory>)` writing the whole of tensor `t` (its shape):
// an fp32 accumulator or carry a move declares zeroed.
Op zeros_declaration(const Kernel& k, int t, Memory memory);
// A new statement declaring on-chip tensor `t` whole (`nl.ndarray(shape, dtype, buffer)`), printed
// from the form.
Node declaration_node(Kernel& k, int t);
// Removes declarations (Alloc nodes) of on-chip buffers no operation touches any more.
void remove_dead_buffers(Kernel& k);
// Contracts every on-chip block buffer whose accesses index each block dim by an enclosing loop's
// variable (each block used in one iteration) into one tile declared in that loop (contract.cpp);
// `within_loop` >= 0: only buffers whose accesses all lie inside that loop. Returns how many.
int contract_block_buffers(Kernel& k, int within_loop = -1);
// The same for buffer `t` alone: whether it can be contracted, and (apply) contracting it.
bool contract_block_buffer(Kernel& k, int t, bool apply);

// Rewrites the declarations of the on-chip tensors `tensors` to their shapes in the form (after a
// transformation changed them), printed from the form.
void redeclare(Kernel& k, const std::set<int>& tensors);

// Unroll and jam (jam_rows.cpp) of the loop node `id` by `factor`: whether it is legal, and doing it
// (throws TransformError when it is not).
bool can_jam_rows(Kernel& k, int id, int64_t factor);
// A jam_rows site admitted for its rows' engine round trips alone (parameter overlap=engines): it
// shares nothing between the rows, so the planner weighs it by how much the kernel waits.
bool overlaps_rows_only(const std::string& transform, const std::map<std::string, std::string>& params);
void jam_rows(Kernel& k, int id, int64_t factor);

// Loop fusion (fusion.cpp) of the adjacent loop nodes `a` and `b` over the same range, legality
// decided by the caller: b's body after a's, b's variable renamed to a's; b's node goes away.
void fuse_loops(Kernel& k, int a_id, int b_id);

// Calls fn on every index expression of `nodes` (access starts and sizes, index, grid and shape
// operands, per-iteration choices, masks, conditions, inner loop bounds, views): what
// substitute_nodes rewrites, and what a move reading the loops' use of a variable reads
// (unflatten.cpp). `k` and `nodes` const or not, fn taking the expression alike.
template <class K, class Nodes, class F>
void for_each_index_expr(K& k, Nodes& nodes, F&& fn) {
  auto access = [&](auto& a) {
    for (auto& d : a.dims) {
      fn(d.start);
      for (auto& t : d.terms) fn(t.size);
    }
  };
  using NodeRef = std::conditional_t<std::is_const_v<Nodes>, const Node&, Node&>;
  for_each_node(nodes, [&](NodeRef n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (op.dst) access(*op.dst);
      for (auto& a : op.args) {
        auto& o = a.value;
        if (o.kind == Operand::Kind::Tile) access(o.access);
        if (o.number_when) fn(*o.number_when);
        if (o.kind == Operand::Kind::Index) fn(o.index);
        if (o.kind == Operand::Kind::Shape)
          for (auto& d : o.shape) fn(d);
        if (o.kind == Operand::Kind::Grid) {
          fn(o.grid.start);
          for (auto& t : o.grid.terms) fn(t.size);
        }
      }
      for (auto& c : op.mask) fn(c.expr);
    }
    if (n.view) access(*n.view);
    if (n.kind == NodeKind::If) fn(n.cond_l), fn(n.cond_r);
    if (n.kind == NodeKind::Loop) {
      auto& l = k.loops.at(n.loop);
      fn(l.start), fn(l.stop);
    }
  });
}

// Loop variable `from` replaced by `with` in every index, mask, condition and bound of `nodes`
// (fusion.cpp); `substitute_access` in one access. Given `ranges` (the loops' values), the `//`,
// `%`, min and max the substitution makes are simplified over them.
void substitute_access(Access& a, int from, const IExpr& with, const Ranges* ranges = nullptr);
void substitute_nodes(Kernel& k, std::vector<Node>& nodes, int from, const IExpr& with,
                      const Ranges* ranges = nullptr);
void rename_nodes(Kernel& k, std::vector<Node>& nodes, int from, int to);
// A name for a new loop variable or tensor that no loop, tensor or text of the source uses (`base`,
// `base2`, ...): the source may hold names the form does not (helpers, host code, comments), and a
// printed kernel must not shadow them. The one picker of fresh_loop_var-style names (chunk_rows'
// `chunk`, jam_rows' `s_blk`, fold_rows' `x_fold`, fusion's `i_blk` / `i_in`, ...).
std::string fresh_loop_var(const Kernel& k, const std::string& base);
// A reshaped view of HBM tensor `base` (`x_fold = x.reshape((2 * rows, cols // 2))`), named
// `<base><suffix>` (fresh), in the scope of loop `scope_loop` (-1: the kernel's body): adds the
// view tensor (its id in `view`) and returns its declaration, to be placed before its uses. The
// moves that walk HBM tensors through other views (fold_rows, retile_flat).
Node hbm_reshape_view(Kernel& k, int base, const std::string& suffix, const std::vector<IExpr>& shape, int scope_loop,
                      int& view);
// A new name for a second tile called `name` (`name_2`, `name_3`, ...): in neither `taken` nor the
// source text. The renames of clashing tiles (forward_scratch's fused nests, open_helpers' helper
// locals, hoist_expand's buffer).
std::string fresh_copy_name(const Kernel& k, const std::string& name, const std::set<std::string>& taken = {});
// Adds loop `l` to the kernel under a new id, which it returns.
int add_loop(Kernel& k, Loop l);
// The bound of a loop node's header as its author wrote it (`N // NB` of `for n in
// nl.affine_range(N // NB)`), printed; "" when the header is not a one-argument range call or the
// bound is a number (the form's number is as good).
std::string authored_bound(const Node& loop);
// The loop node's header with variable `var` and its authored bound divided by `divisor`
// (`for m_blk in nl.affine_range(m_tiles // 2):`; the bound alone for divisor 1); "" when the
// bound is not authored.
std::string authored_header(const Node& loop, const std::string& var, int64_t divisor);
// The same with the divisor as text (a group size the author named: `n_heads // GROUP`).
std::string authored_header(const Node& loop, const std::string& var, const std::string& divisor);
// The loop node's authored range call with variable `var` over `bound` (`for g in
// nl.affine_range(GROUP):`); "" when its bound is not authored.
std::string range_header(const Node& loop, const std::string& var, const std::string& bound);

// Factories.
std::unique_ptr<Transform> make_fold_silu();
std::unique_ptr<Transform> make_fold_scalar_ops();
std::unique_ptr<Transform> make_fold_scale();
std::unique_ptr<Transform> make_fold_scalar_tensor_tensor();
std::unique_ptr<Transform> make_fold_reciprocal();
std::unique_ptr<Transform> make_fold_bias();
std::unique_ptr<Transform> make_fold_scale_through_reduce();
std::unique_ptr<Transform> make_engine_assign();
std::unique_ptr<Transform> make_coarsen();
std::unique_ptr<Transform> make_fuse_nests();
std::unique_ptr<Transform> make_fold_activation_reduce();
std::unique_ptr<Transform> make_whole_row_reduce();
std::unique_ptr<Transform> make_hoist();
std::unique_ptr<Transform> make_jam_rows();
std::unique_ptr<Transform> make_interchange();
std::unique_ptr<Transform> make_affine_loop();
std::unique_ptr<Transform> make_chunk_rows();
std::unique_ptr<Transform> make_fold_rows();
std::unique_ptr<Transform> make_defer_normalization();
std::unique_ptr<Transform> make_pipeline_prep();
std::unique_ptr<Transform> make_forward_scratch();
std::unique_ptr<Transform> make_free_size();
std::unique_ptr<Transform> make_reorder_reuse();
std::unique_ptr<Transform> make_in_place();
std::unique_ptr<Transform> make_hoist_expand();
std::unique_ptr<Transform> make_hoist_compute();
std::unique_ptr<Transform> make_expand_buffer();
std::unique_ptr<Transform> make_expand_interchange();  // expand_interchange.cpp: expand_buffer, the loop moved inward, hoists out of it
std::unique_ptr<Transform> make_coalesce_stores();
std::unique_ptr<Transform> make_hoist_transpose();
std::unique_ptr<Transform> make_forward_defer();  // chain.cpp: forward_scratch, then defer_normalization
std::unique_ptr<Transform> make_reuse_operand();  // chain.cpp: interchange, hoist_expand, hoist_transpose
std::unique_ptr<Transform> make_feed_pe_first();

}  // namespace loopnest
