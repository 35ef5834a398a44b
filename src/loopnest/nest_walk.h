// Helpers of the moves that take work out of loops (hoist_expand.cpp, hoist_transpose.cpp): the
// statements with the loops around them, the names a piece of source text binds or reads (text
// naming something bound inside a loop cannot be printed before it), and SBUF bytes per partition.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loopnest/analysis.h"
#include "loopnest/form.h"

namespace loopnest {

// The one loop named `var` (a form lifted again numbers its loops anew), or -1 when the name is not
// one loop's.
int loop_named(const Kernel& k, const std::string& var);
// Bytes of one element of `dtype` (4 when unknown).
int64_t itemsize_of(const std::string& dtype);
// Bytes per partition of one tile of `t` (its dims from `from` on, but the partition dim); nullopt
// when a size is not constant.
std::optional<int64_t> tile_bytes(const Tensor& t, size_t from);
// The compiler runs the loop's iterations in order: `sequential_range`, and Python `range` in a
// legacy kernel (in the newer API `range` is affine_range's alias).
bool runs_in_order(const Kernel& k, const Loop& l);
// Bytes one access moves: the element size times its tile's dims, a dim whose size varies counted
// as 1 (the moves that weigh HBM reads compare accesses of one nest, where such a dim is rare).
double access_bytes(const Kernel& k, const Access& a);
// Bytes per partition of every SBUF buffer and value but `except`: what is live beside a new buffer
// in the worst case. A tensor counts every dim but its partition dim, so that a group of tiles held
// as block dims (`(40, par_dim(128), 512)`) and the same group held as a free dim (`(128, 40, 512)`)
// count alike; but a dim that every access indexes at one point by the same expression of loops
// enclosing all of them and not the tensor's declaration counts once (one block per iteration: the
// legacy style's `x_tile[i0, i1]`, each block used in its iteration only).
int64_t other_sbuf_bytes(const Kernel& k, const Analysis& an, int except);
// The SBUF bytes of one partition of the smallest architecture (trn1).
int64_t sbuf_budget();
// Instructions each compute engine family ("pe", "dve", "act", "pool"; with `dma`, also the DMA
// transfers as "dma") runs over the whole kernel: every operation once per iteration of each loop
// around it. Empty when a trip count is not constant (a kernel lifted without the task's shapes).
std::map<std::string, double> engine_instructions(Kernel& k, bool dma = false);
// How a move changes the work of each engine family, from `before`'s instruction counts (taken
// with `dma`) to `after`'s. `adds`: the compute families whose count grows by over 1%, with the ratio
// (Site::adds: the planner compares the family's busy time times the ratio with the latency).
// `relieves`: the families, DMA included, whose count falls by over 1% (Site::relieves, measured on
// the result rather than listed).
struct WorkChange {
  std::map<std::string, double> adds;
  std::set<std::string> relieves;
};
WorkChange work_change(const std::map<std::string, double>& before, Kernel& after);

// The statement's one operation that is not a declaration, or null (none, or several).
const Op* sole_op(const Node& n);

// The names an expression reads.
void names_of(const nki::Expr& e, std::set<std::string>& out);
// The names a loop's authored bound reads ({} when it has none).
std::set<std::string> bound_names(const Node& loop);
bool reads_any(const std::set<std::string>& names, const std::set<std::string>& of);
// The loop ids of `n` and of the loops below it.
std::set<int> loops_within(const Node& n);
// The loops around the node `id`, outermost first (empty when it is in none, or not found).
std::vector<int> loops_around(const Kernel& k, int id);
// The names bound inside `outer` (its variable, the variables and bindings below it, the tensors
// declared there), but those of the loops `keep` (copied with a hoisted statement): text naming
// one of them cannot be printed before `outer`.
std::set<std::string> names_local_to(const Kernel& k, const Node& outer, const std::vector<int>& keep);
// A block whose body runs exactly when the statements around it run: an `if` the kernel's Python
// decided while tracing (its condition compares constants, shapes: `if K <= 128:`, `if n % 512 ==
// 0:`) that holds, with no else branch written, or that fails, its else branch written (which
// runs; transparent_body), or a `with nki.compiler.<directive>():` block. A
// statement under it inside loop L is, for a move, a statement of L's body: the path walks pass it
// (each_stmt leaves it out of the path; interchange's perfect nest looks into it), the printer keeps
// the block where it was written. Not frozen, not a guard clause (`continues`).
bool transparent_block(const Node& n);
// The branch of a transparent block that runs: its body, or a failing if's else branch.
std::vector<Node>& transparent_body(Node& n);
const std::vector<Node>& transparent_body(const Node& n);
// A copy of a decided `if` a move made around statements it took out of the if (guard_copies): its
// header (`if rem > 0:`; `if rem != 0:` for the else branch of `if rem == 0:`) is its patch; it holds.
bool guard_copy(const Node& n);
// The transparent blocks between loop node `loop` and the node `id` under it (at any depth, through
// loops), outermost first.
std::vector<const Node*> blocks_between(const Node& loop, int id);
// Empty guard copies (outermost first) of the decided `if`s among `blocks` (blocks_between) whose
// condition names nothing in `local` (bound inside the loop a move leaves): statements a move takes
// out of those blocks, printed before the loop inside them (under_copies), run where the author's
// branch runs at any shapes, not only those the kernel was lifted at (`if rem > 0:` around a ragged
// tail's hoisted load: no empty load where the tail is empty). A guard naming something bound in
// the loop has no copy (the statement moves unguarded there); a directive's `with` block neither.
std::vector<Node> guard_copies(Kernel& k, const std::vector<const Node*>& blocks, const std::set<std::string>& local);
// Copies (id -1) of the plain bindings (`c0 = NT * NB`) in the transparent blocks `blocks`
// (blocks_between), each before the part of its block holding the node `id`, that read nothing in
// `local` and bind names bound nowhere else in the kernel: printed before the loop with a statement
// moved out of those blocks, they give the names it reads the values they have there.
std::vector<Node> guard_bindings(const Kernel& k, const std::vector<const Node*>& blocks, int id,
                                 const std::set<std::string>& local);
// The guard_bindings that `stmt`'s text names, with fresh ids: copied before the loop with it.
std::vector<Node> named_guard_bindings(Kernel& k, const std::vector<const Node*>& blocks, const Node& stmt,
                                       const std::set<std::string>& local);
// `nodes` inside the copies, nested (the nodes themselves when there is none).
std::vector<Node> under_copies(std::vector<Node> nodes, std::vector<Node> copies);
// Inserts `n` at `at` in `block`, its guard copies merged into the guard copy just before `at` that
// has the same header (statements hoisted one after another out of one guard print under one if).
void insert_merged(std::vector<Node>& block, size_t at, Node n);
// Inserts `nodes` in order at `at`, each by insert_merged.
void insert_merged(std::vector<Node>& block, size_t at, std::vector<Node> nodes);
// The nodes of `loop`'s body in order, a transparent block's in its place (recursively): what a move
// reading the body statement by statement takes as the body.
std::vector<Node*> body_through_blocks(Node& loop);
// Calls `fn` with every statement outside helper functions and the loops and conditions around it
// (a transparent block is not one of them: its statements are its parent's).
void each_stmt(Kernel& k, const std::function<void(Node&, const std::vector<const Node*>&)>& fn);
// How many loops a statement leaves when it moves before the loop node `outer`: `outer` and the
// loops between it and the statement node `stmt` but those in `used` (style-independent).
int loops_left(Kernel& k, int stmt, int outer, const std::vector<int>& used);
// The author's bound of loop `l` (`N // NB`) for a buffer dim; "" when a move rewrote the loop, the
// bound is a number, or it names something in `local` (not bound where it is printed).
std::string printable_bound(Kernel& k, int l, const std::set<std::string>& local);
// `fill` inside copies of the loops `used` (outermost first): each copy a new loop whose variable
// replaces the original's in `fill`, its header the author's unless that names something in `local`;
// `first` (a binding copied with the fill) heads the outermost copy's body.
Node in_loop_copies(Kernel& k, Node fill, const std::vector<int>& used, const std::set<std::string>& local,
                    const std::optional<Node>& first = std::nullopt);
// The same for several statements in order: one node, the outermost copy (`fill` itself when
// `used` is empty).
std::vector<Node> in_loop_copies(Kernel& k, std::vector<Node> fill, const std::vector<int>& used,
                                 const std::set<std::string>& local, const std::optional<Node>& first = std::nullopt);
// Tile operands of `ops` whose text names something in `local` are printed from the form.
void forget_local_text(std::vector<Op>& ops, const std::set<std::string>& local);
// The block holding the node `id` and its index there (`at`); null when there is none.
std::vector<Node>* parent_block(std::vector<Node>& block, int id, size_t& at);

}  // namespace loopnest
