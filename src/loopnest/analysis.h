// Dependences on the loop-nest form: which operations read and write which regions of which
// tensors, in program order, and whether two accesses can touch the same elements. The
// transformations decide legality from these, whatever the source style: a value bound to a name
// in one style and a block of a declared buffer in another are both a region written by one
// operation and read by others.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// One operation in program order: where it is and what it touches.
struct OpRef {
  Node* node = nullptr;
  size_t index = 0;                 // into node->ops
  std::vector<Node>* block = nullptr;  // the list holding node
  size_t position = 0;              // node's index in `block`
  std::vector<int> loops;           // enclosing loop ids, outermost first
  int order = 0;                    // program order
  Op& op() const { return node->ops[index]; }
};

struct Analysis {
  std::vector<OpRef> ops;  // program order
  explicit Analysis(Kernel& k);

  // Operations reading (any operand) / writing (dst) tensor `t` or a tensor aliasing it (views).
  std::vector<const OpRef*> readers(const Kernel& k, int t) const;
  std::vector<const OpRef*> writers(const Kernel& k, int t) const;
  const OpRef* find(const Node* node, size_t index) const;
  // Operations reading elements of region `a` (per-dim interval test).
  std::vector<const OpRef*> region_readers(const Kernel& k, const Access& a) const;
};

// The tensor whose storage `t` shares (itself unless a view).
int storage_of(const Kernel& k, int t);

// Every tile access an operation reads (operands and an accumulated dst) / writes (dst, reduce_res).
std::vector<const Access*> reads(const Op& op);
// Whether the op reads its destination as well (a DMA read-modify-write, `dst_rmw_op=`).
bool reads_destination(const Op& op);
std::vector<const Access*> writes(const Op& op);

// Whether two accesses can touch a common element (per-dim interval test; different tensors never
// overlap unless aliased, views are assumed to). Two questions, two names:
// - across iterations: false only when no values of the loop variables in `ranges`, taken
//   independently by each access (a variable both use may have different values in each), make
//   them meet. What a dependence between different iterations, or an op moved out of a loop, needs.
// - within one iteration of the loops in `shared`: those variables take the same value in both
//   accesses (the starts are subtracted symbolically, so `out[128*i]` and `out[128*i + 128]` of one
//   iteration of `i` are disjoint); every other variable is still taken independently. What two
//   ops of one iteration of the shared loops need (two jammed rows' stores).
// Both are conservative: true wherever the bounds cannot decide (an unbounded variable).
bool may_overlap_across(const Kernel& k, const Access& a, const Access& b, const Ranges& ranges);
bool may_overlap_within(const Kernel& k, const Access& a, const Access& b, const Ranges& ranges,
                        const std::set<int>& shared);

// Tensors loop `loop` carries from one iteration to the next: declared outside the loop, written
// inside it by an operation that is no accumulation (`+=`) at an access that does not move with the
// loop variable, and read inside it at or before that write (by the same operation or an earlier
// one): each iteration reads what the one before wrote (a running max or sum, a scan's carry, a
// name rebound each iteration, lift_carry.cpp). A move that reorders, interleaves or merges the
// loop's iterations changes the values; accumulations only change the order of a sum.
std::set<int> carried_tensors(const Kernel& k, int loop);
// Whether the iterations of loop `loop` may run in any order: an affine loop carrying no tensor,
// or a static_range (or newer-API range) whose iterations commute (iterations_commute).
bool independent_iterations(const Kernel& k, int loop);
// Whether the iterations of loop `loop`, whatever kind it is written as, depend on each other only
// through accumulations: it carries no tensor (carried_tensors), and no operation of one iteration
// touches a region an operation of a later iteration writes, or writes one a later iteration
// touches, but two accumulations (`+=`) into it, which only change the order of a sum (LANG:
// affine_range allows associative accumulation into a buffer defined outside the loop); and no
// instruction continues an engine's accumulator (`reduce_cmd=reduce`: engine state). Tiles
// declared in the loop are one per iteration. Conservative: false wherever the bounds cannot
// decide. What a sequential loop needs to be written affine_range (affine_loop.cpp).
bool iterations_commute(const Kernel& k, int loop);
// The same where the tensors of `sums` (summed_carries) are carried: their adds count as
// accumulations, each carried tensor outside `sums` still refuses.
bool iterations_commute(const Kernel& k, int loop, const std::set<int>& sums);
// Whether `op` adds a value into its destination: `T[r] += v`, or `T[r] = add(T[r], v)` / `T[r] =
// add(v, T[r])` (one operand the destination's region itself): a running sum written as an
// assignment, as a CUDA port accumulates a PSUM result into an SBUF row (`acc[...] = nl.add(acc, ps)`).
bool adds_into_destination(const Op& op);
// The tensors loop `loop` carries (carried_tensors) only as running sums: every operation of the
// loop touching one adds into it (adds_into_destination) at a region that does not move with the
// loop, and no other operation of the loop reads it. Merging iterations of the loop regroups the
// sum: what an accumulation `+=` allows (only the order of the additions changes).
std::set<int> summed_carries(const Kernel& k, int loop);
// Whether `op` continues the accumulator its engine kept from an earlier instruction
// (`reduce_cmd=reduce`, or a command chosen per iteration): a dependence on the engine's state,
// which no tile access shows.
bool continues_engine_accumulator(const Op& op);

// Whether one dim's index uses loop variable `loop` (its start or a term's size).
bool uses_loop(const DimIndex& d, int loop);
// Whether `a` uses loop variable `loop` anywhere (starts, sizes).
bool uses_loop(const Access& a, int loop);
// Whether a size of `a` uses loop variable `loop` (a tile that changes size per iteration: `min(128,
// M - 128 * m)`, a ragged last tile).
bool size_uses_loop(const Access& a, int loop);
bool uses_loop(const Op& op, int loop);
// Whether a constraint of the op's mask reads loop variable `loop`.
bool mask_uses(const Op& op, int loop);
// Whether two operations are guarded by the same mask (the same constraints, or both unmasked).
bool same_mask(const Op& a, const Op& b);
// Whether every element `consumer` computes is one `producer` computed: the producer is unmasked,
// or both carry the same mask (a library kernel's guard of a ragged tile on every instruction).
// Folding the two into one instruction that keeps the consumer's mask is then exact.
bool mask_implies(const Op& consumer, const Op& producer);
// Whether the operation's mask constrains only the partition axis (whole rows kept or left out).
bool masks_rows_only(const Op& op);
// A non-tile operand that is an expression of loop `loop` (Operand::Kind::Index / Grid): a
// transformation that rewrites the loop's variable in accesses must rewrite it too, or refuse.
bool index_operand_uses(const Operand& o, int loop);
bool index_operand_uses(const Op& op, int loop);
bool has_index_operand(const Op& op);  // any Index / Grid operand

// The op that produced the region `a` reads: an earlier op of the block whose dst is exactly `a`
// (or its in-place update of what one earlier op wrote fresh, analysis.cpp), no other op reading or
// writing the tensor but `consumer`: the value flows from producer to consumer and nowhere else.
const OpRef* sole_producer(const Kernel& k, const Analysis& an, const OpRef& consumer, const Access& a);

// A number, or a per-partition scalar tile ([P, 1] or [P]): what tensor_scalar takes as operand.
bool scalar_like(const Operand& o);
// A binary operation of a tile and a number or a per-partition scalar: one tensor_scalar instruction.
bool tensor_scalar_form(const Operand& x, const Operand& y);

// What an op computes, whatever API spells it: "multiply" for nl.multiply, tensor_tensor(op=multiply)
// and `x * y`; "act(exp)" for nisa.activation(op=exp) and nl.exp; "ts(add)"; "load"; "matmul".
std::string op_kind(const Op& op);

// A declaration (nl.ndarray, nl.zeros, ...): where it sits depends on the style, not the nest.
bool is_declaration(const Op& op);

// The first operation inside loop `loop` that is not a declaration (the anchor of loop sites).
const OpRef* first_op_in(const Analysis& an, int loop);

// Style-independent description of where an op is: the trip counts of its loops and its kind,
// e.g. "32x7x2/act(exp)#0" (the ordinal tells apart equal ops of one nest).
std::string op_signature(const Kernel& k, const Analysis& an, const OpRef& r);

}  // namespace loopnest
