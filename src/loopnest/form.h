// The loop-nest form of an NKI kernel: its loops (kind, trip count, induction variable), its
// tensors (HBM / SBUF / PSUM, shape, dtype, partition dim, block dims) and its statements as tile
// operations (DMA loads and stores, ISA / language instructions with engine and operands,
// accumulations), each access a quasi-affine map from loop variables and tile axes to tensor
// elements. The same nest written in another style (index grids or slices, block-dim buffers or
// per-iteration tiles, legacy or destination-first API) has the same form up to names.
//
// Every node keeps the AST statement it was lifted from, so an unchanged node prints back as the
// author wrote it (emit.h); a transformation marks the nodes it changes dirty.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loopnest/arg_spec.h"
#include "loopnest/iexpr.h"
#include "nki/ast.h"

namespace loopnest {

enum class Memory : uint8_t { Hbm, Sbuf, Psum };
enum class TensorRole : uint8_t {
  Argument,  // a kernel parameter (HBM)
  Output,    // declared in shared HBM (returned)
  Scratch,   // declared in private HBM
  Buffer,    // declared on chip (nl.ndarray / nl.zeros / ...): block dims before the partition dim
  Value,     // the tile an instruction returns, bound to a name (or anonymous inside a statement)
  View,      // a reshape of another tensor (same bytes)
  Constant,  // nl.shared_constant
};
const char* to_string(Memory m);
const char* to_string(TensorRole r);

struct Tensor {
  int id = -1;
  std::string name;   // Python name at its definition ("v4", "x_tile"); "" when anonymous
  std::string label;  // the name= keyword of its declaration
  TensorRole role = TensorRole::Value;
  Memory memory = Memory::Sbuf;
  std::vector<IExpr> shape;
  int partition_dim = 0;  // on chip: index of the partition dim in `shape` (dims before it are block dims)
  std::string dtype;      // "float32", "bfloat16", ...; "" when unknown
  int base = -1;          // View: the tensor it aliases
  int scope_loop = -1;    // innermost loop around its definition (-1: the kernel): one instance per iteration
  // A tile appended to a Python list once per iteration of `list_loop` (`scores.append(row)`):
  // the list's elements are this tensor's blocks along its first dim, `scores[m]` block m.
  std::string list_name;
  int list_loop = -1;
  // A list of such lists (`block_tiles.append(row)` once per iteration of an enclosing loop, to any
  // depth): the outer levels' (list name, loop), outermost first, each one more block dim before
  // the inner list's; `result_tiles[m][bm][bn]` indexes them in order.
  // (A host list of lists, `h_t = [[None] * B for _ in range(T)]` filled by item assignment, has
  // one outer level over no loop, -1: lift_none_list.cpp.)
  std::vector<std::pair<std::string, int>> outer_lists;
  // The author's expression for a dim a transformation made (`N // NB` for a block dim over the
  // loop `for n in nl.affine_range(N // NB)`), printed in the declaration while the dim still has
  // that value; one per dim of `shape` ("" where the form's number is printed) or empty.
  std::vector<std::pair<IExpr, std::string>> dim_text;
  // A Python list of fresh tiles of one shape made by a comprehension (`bufs = [nl.ndarray((P, F),
  // ...) for _ in range(2)]`, multi-buffering): its items along the first dim, `bufs[i % 2]` block
  // `i % 2`; printed as `list_name[index]` (lift_expr.cpp, merge_fresh_tiles).
  bool host_list = false;
  // A host list whose items the kernel binds to tiles by item assignment (`carry[s] = nl.copy(h)`
  // after `carry = [0.0] * S`, lift_filled_list.cpp): a whole item is written by binding it, printed
  // `carry[s] = ...`, never written into (`carry[s][...]`: its first value is a number).
  bool bound_items = false;
  size_t list_levels() const { return list_loop < 0 ? (host_list ? outer_lists.size() + 1 : 0) : outer_lists.size() + 1; }
  bool on_chip() const { return memory != Memory::Hbm; }
};

// One tile axis's contribution to a tensor dim: stride * a for a in [0, size), or quasi-affine,
// stride * ((a // div) % mod) (`i_f // 128`, `(i_f // 8) % 4`, `i_f % 128`: an index split over two
// tensor dims; mod 0: no remainder).
struct AxisTerm {
  int axis = 0;
  IExpr size;
  int64_t stride = 1;
  int64_t div = 1;
  int64_t mod = 0;
  bool affine() const { return div == 1 && mod == 0; }
  // The largest value (a // div) % mod takes over the axis (size - 1 when affine); nullopt when
  // the size is not constant.
  std::optional<int64_t> max_index() const;
};
// The element index along one tensor dim: start + sum of the axis terms. No term: the dim is
// indexed by one integer (dropped from the tile).
struct DimIndex {
  IExpr start;
  std::vector<AxisTerm> terms;
  bool operator==(const DimIndex& o) const;  // the same start and terms, term by term
};
struct Access {
  int tensor = -1;
  std::vector<DimIndex> dims;  // one per dim of the tensor
  // The tile's rank when index grids give it axes no dim uses (`t[nl.arange(128)[:, None], 0]` is
  // [128, 1]); -1: the axes the terms use.
  int rank = -1;
  // The tile's shape: the size of every axis 0..n-1 (the largest term size per axis).
  std::vector<IExpr> tile_shape() const;
  bool operator==(const Access& o) const;
};

// A mask: every constraint (expr + sum coeff * axis) cmp 0 holds for the elements computed.
struct Constraint {
  IExpr expr;
  std::map<int, int64_t> axes;
  Cmp cmp = Cmp::Ge;
};

struct Operand {
  // Index: an integer that depends on loop variables (`range_start=c * P`, a `reduce_cmd` chosen
  // per iteration, `(0 if c == 0 else 1)`); Grid: an index grid that does (`nisa.iota(
  // nl.arange(P)[:, None] + r * P)`). Both are expressions of the induction variables, so a
  // transformation that renames or substitutes a loop variable rewrites them like an access
  // (fusion), and one that cannot refuses the site (index_operand_uses, analysis.h).
  enum class Kind : uint8_t { Tile, Number, Symbol, Shape, None, Other, Index, Grid };
  Kind kind = Kind::Other;
  Access access;                 // Tile
  double number = 0;             // Number
  std::string number_type;       // Number: dtype of a typed numpy scalar ("float32"), else ""
  bool integer = false;          // Number: a Python int
  std::string symbol;            // Symbol: canonical name ("exp", "add", "vector", "float32", "True")
  std::vector<IExpr> shape;      // Shape
  IExpr index;                   // Index
  DimIndex grid;                 // Grid: start + its axis terms
  int grid_rank = 0;             // Grid: the number of axes of the grid (`[:, None]` is 2)
  const nki::Expr* origin = nullptr;  // the expression it was lifted from (printed while unchanged)
  // The origin was written at another statement and a move carried the operand here (a fold's
  // `scale`): printed as written only if the print-back still lifts to the same form there
  // (emit_checked), else as its value.
  bool origin_moved = false;
  // Tile, Shape: what the lift read (its expression and access or dims), kept when a move rewrites the operand and
  // drops `origin`: a regenerated access copies the author's text of every dim the move left as it
  // was and spells the others as the author did (`nl.ds(start, size)` where the author wrote one).
  const nki::Expr* written = nullptr;
  std::shared_ptr<const Access> written_access;
  std::shared_ptr<const std::vector<IExpr>> written_shape;  // Shape: the dims as lifted
  std::string text;              // Other: the source text
  // Tile: a per-iteration choice between a number and the tile (`0.0 if blk == 0 else carry`, a
  // scan's initial value): in the iterations where this bool expression of the loop variables is 1
  // the op takes `number` (`integer`, `number_type`) instead. The tile counts as read in every
  // iteration, so dependences stay conservative; the expression is an index operand for the moves
  // (index_operand_uses).
  std::optional<IExpr> number_when;
};

enum class OpClass : uint8_t {
  Alloc,        // a declaration without initial values
  Memset,       // nl.zeros / nisa.memset / nl.full
  Load,         // HBM -> on chip
  Store,        // on chip -> HBM
  DmaCopy,      // other DMA (HBM -> HBM, on-chip copies by DMA)
  Elementwise,  // tensor_tensor / tensor_scalar / nl.add ... (Vector, GpSimd or Scalar engine)
  Activation,   // nisa.activation and the nl.* unary functions on the Scalar Engine
  Reduce,       // along free axes
  Matmul,
  Transpose,
  Copy,         // nl.copy / tensor_copy / tile assignment
  Broadcast,
  Scan,
  Other,
};
enum class Engine : uint8_t { None, Dma, Tensor, Vector, Scalar, GpSimd };
const char* to_string(OpClass c);
const char* to_string(Engine e);

struct Arg {
  std::string name;  // canonical parameter name ("data", "op0", "operand0", "bias", "x", "y", ...)
  Operand value;
  bool positional = false;  // given by position in the source
  bool output = false;      // a tile the op writes besides dst (reduce_res)
};

struct Op {
  std::string api;  // canonical callee: "nisa.activation", "nl.load", "nl.multiply", "assign", ...
  OpClass cls = OpClass::Other;
  Engine engine = Engine::None;
  bool engine_explicit = false;  // engine= given in the source
  std::optional<Access> dst;     // the region it writes
  const nki::Expr* dst_origin = nullptr;  // the expression naming dst (store / dma_copy / destination-first)
  // dst as the lift read it (Operand::written): its spelling when a move rewrites it.
  const nki::Expr* dst_written = nullptr;
  std::shared_ptr<const Access> dst_written_access;
  bool accumulate = false;       // `dst += result` (PSUM / SBUF accumulation)
  int result = -1;               // the Value tensor it returns into (-1: writes dst directly)
  std::vector<Arg> args;
  std::vector<Constraint> mask;  // empty: unmasked
  bool has_mask = false;
  std::string dtype;             // dtype= given
  bool dst_first = false;        // written destination-first (`nisa.X(dst, ...)`, `nl.store(dst, ...)`)
  const nki::CallExpr* origin = nullptr;
  std::string origin_api;        // the api `origin` calls (a transformation may change `api`)
  const Arg* arg(const std::string& name) const;
  Arg* arg(const std::string& name);
};

// A gather (an indirect DMA: `nl.load(x[idx, i_f])`, rows chosen by an index tile at run time): its
// source operand is the whole HBM tensor (it may read any row) and the index tile is the operand
// named kGatherIndex. Its statement is frozen (printed as written, never rewritten): no move has a
// rule for rows that are data.
inline constexpr const char* kGatherIndex = "indirect_rows";
bool gathers(const Op& op);
// A scatter (an indirect DMA's destination: `nl.store(out[idx, i_f], value=t)`, rows chosen by an
// index tile at run time): its dst is the whole HBM tensor, an upper bound of what it writes (a
// "may write": the dependences see every row touched, but it writes only the rows the index tile
// names, so it is no kill of earlier writes), and the index tile is the operand named
// kScatterIndex. Frozen like a gather; every reasoning that takes a dst as the value of its region
// (sole_producer, forward_scratch's round trip) skips a frozen statement or one with more than one
// read, which a scatter always is.
inline constexpr const char* kScatterIndex = "indirect_dst_rows";
bool scatters(const Op& op);
// A gather or a scatter: an access whose rows are data.
inline bool indirect_dma(const Op& op) { return gathers(op) || scatters(op); }

enum class LoopKind : uint8_t { Affine, Sequential, Static, Range };
const char* to_string(LoopKind k);

struct Loop {
  int id = -1;
  std::string var;
  LoopKind kind = LoopKind::Affine;
  IExpr start, stop;
  int64_t step = 1;
  // A loop over a host sequence (`for c, (k0, kn) in enumerate(chunks)`, lift_host.cpp): the
  // kernel's Python unrolls it while tracing, the form holds it as this loop; its header is
  // printed as the author wrote it, never regenerated, and no transformation rewrites it.
  bool host_items = false;
  // Sequential because the program needs its order, not because a tensor carries a value (the
  // random numbers' generator state of sequential_random_loops, an nl.fori_loop): no move may
  // reorder its iterations, whatever the dependences on tiles say (affine_loop.cpp).
  bool ordered = false;
  // A program id of an SPMD launch (`f[grid](...)`, lifted with the launch kept: lift's
  // Launch::Kept): each iteration is one program, and NKI's shared HBM tensors the launched
  // function declares are one tensor for all of them (open_helpers pulls them out of the loops).
  bool program = false;
  // Written `nl.dynamic_range(...)` (newer API: a runtime loop driven by a register, in order):
  // lifted as a sequential loop; a regenerated header of it, still sequential, keeps that name. A
  // move that makes it affine prints affine_range (the iterations unrolled at specialization).
  bool dynamic = false;
  std::optional<int64_t> trip() const;  // when start and stop are constants
};

// Inline: a statement calling a helper function of the module that does tile work; `body` holds the
// helper's nodes (frozen: printed only as the call), `ops` the statement's own operations, the first
// `inline_split` of them evaluated before the helper runs.
enum class NodeKind : uint8_t { Stmt, Loop, If, Meta, Inline };
// Append: `blocks.append(t)` of an opened helper's result into the kernel's list (binds[0] the
// list, view the iteration's element).
enum class MetaKind : uint8_t { None, Import, Docstring, Binding, View, Assert, Return, Pass, Append };

// The helper name of the Inline node of a comprehension computing tiles (`{k: nl.load(v[r]) for k,
// v in srcs.items()}`, one statement per item): no Python name, so it is never opened as a helper
// function's call is (open_helpers.cpp); it stays the statement as written.
inline constexpr const char* kComprehensionHelper = "<comprehension>";

struct Node {
  NodeKind kind = NodeKind::Meta;
  int id = -1;
  std::vector<Op> ops;  // Stmt: inner calls first, the statement's own operation last
  int loop = -1;        // Loop: id into Kernel::loops
  IExpr cond_l, cond_r;  // If: cond_l cmp cond_r
  Cmp cond = Cmp::Lt;
  std::vector<Node> body, orelse;
  MetaKind meta = MetaKind::None;
  std::vector<std::string> binds;  // Meta: names it binds
  std::optional<Access> view;      // Meta View: the region the name denotes
  const nki::Stmt* origin = nullptr;
  std::string helper;    // Inline: the helper's name
  size_t inline_split = 0;
  bool frozen = false;  // inside a helper function: a transformation must leave it alone
  // If: the author's `if c: ...; continue` in a loop's body, the statements after it (and its own
  // else branch) being `orelse`: the body holds the branch without its `continue`. The form reads
  // it as the if/else it means; printed back as written (the `continue`, then the rest after the
  // if) where nothing follows it in the loop's body, as an if/else otherwise (emit.cpp).
  bool continues = false;
  bool dirty = false;  // printed from the form rather than copied
  // A second or later copy of one authored statement (jam_rows' rows): the comments above the
  // author's statement print above the first copy only.
  bool repeat_copy = false;
  std::string patch;   // a dirty node's source text (first line unindented), when a transform wrote it
  // A statement a move removed just before this node (reuse_loaded's reload): the comment lines
  // above it print above this node, before its own.
  const nki::Stmt* leading_of_removed = nullptr;
  // Identifiers to rename when the node's source is copied (a loop variable after fusion).
  std::map<std::string, std::string> renames;
};

struct Param {
  std::string name;
  int tensor = -1;  // array argument; -1 for a scalar
  std::optional<double> scalar;
  // A scalar or tuple argument as the task passed it (`eps` between two arrays): a lift of a
  // transformed kernel needs it again to bind the parameters after it.
  std::optional<ArgSpec> passed;
};

// How the kernel is written: what printing back imitates.
struct Dialect {
  bool new_api = false;           // `import nki` (destination-first nisa calls) rather than neuronxcc.nki
  std::map<std::string, std::string> alias;  // "nki.language" -> "nl", "nki.isa" -> "nisa", "numpy" -> "np"
  bool grid_indexing = false;     // nl.arange index grids rather than slices, for new accesses
  bool block_buffers = false;     // results written into declared block-dim buffers rather than names
  std::string indent = "    ";    // one level of the kernel body
  // The decorator the printed kernel's def gets when it has none (`nki.jit`): a wrapper that only
  // launched a decorated kernel holds that kernel's work once its launch is opened
  // (open_helpers), so it is the traced kernel now.
  std::string decorate;
};

struct Kernel {
  std::string name;
  // The function of the file it was lifted for (`--entry`; "" = the file's default): a move's
  // printed result is lifted again for the same one.
  std::string entry;
  // The NeuronCore generation it was lifted for (nisa.get_nc_version(): 2 trn1, 3 trn2): a kernel
  // choosing its code by target lifts the branch that target's trace runs; the other branch is
  // kept as written when the form is printed back, so the printed kernel still serves every target.
  int nc_version = 2;
  std::vector<Param> params;
  std::vector<Tensor> tensors;
  std::map<int, Loop> loops;
  std::vector<Node> body;
  std::vector<int> outputs;
  Dialect dialect;
  std::shared_ptr<const nki::ModuleAst> module;  // the AST every origin points into
  const nki::FunctionCode* function = nullptr;
  // An SPMD launch (`gated_relu[grid](x, y)` in a wrapper that does nothing else on tiles): the form
  // is the launched function's, `function` is it, and `grid` holds the loops of its program ids
  // (one per grid axis, outermost first, each over the axis's extent). They have no node: every
  // program runs the body on its own, so the body is the form's top level with the program ids as
  // loop variables of known range, and no move can reorder, fuse, split or hoist out of them (the
  // launch is the wrapper's text, which printing keeps). `params` stay the wrapper's (the file's
  // arguments). Empty for a kernel that is not launched on a grid.
  std::vector<int> grid;
  int next_node = 0;

  Tensor& tensor(int id) { return tensors.at(static_cast<size_t>(id)); }
  const Tensor& tensor(int id) const { return tensors.at(static_cast<size_t>(id)); }
  Ranges ranges() const;                       // every loop variable's values
  std::string var_name(int loop) const;        // the induction variable's name
  std::string str(const IExpr& e) const;       // with induction variable names
};

// Whether `a` denotes all of its tensor in the tensor's own axis order (`t`, `t[...]`, `t[:, :]`).
bool accesses_whole(const Kernel& k, const Access& a);
// The access denoting all of tensor `t` in its own axis order (the one `accesses_whole` accepts):
// how a new tile's writer and readers name it.
Access whole_of(const Kernel& k, int t);
// Appends `t` to the kernel's tensors under the next id (its `id` is set); returns that id. The one
// way the lifter and the transformations make a tensor, so ids stay positions in `tensors`.
int add_tensor(Kernel& k, Tensor t);

// Visits every node (pre-order) with the chain of enclosing loop ids.
void for_each_node(const std::vector<Node>& body, const std::function<void(const Node&, const std::vector<int>&)>& fn);
void for_each_node(std::vector<Node>& body, const std::function<void(Node&, const std::vector<int>&)>& fn);
// Marks `n` and every node under it (body and orelse) frozen: printed as written, never transformed.
void freeze(Node& n);
// A `with nki.compiler.<directive>():` block (no_reorder, ...): lifted as a conditional that is
// always taken. Its directives order or place instructions and change no value, so a transformation
// that rewrites the statements inside it as if the block were not there keeps the program.
bool directive_block(const Node& n);
// Notes every tile operand's and destination's expression and access as lifted (Operand::written,
// Op::dst_written): the lift's last step.
void note_written(Kernel& k);
// The comment lines above `gone` (a statement a move removes) print above `to`, unless `to` already
// carries another removed statement's (Node::leading_of_removed).
void keep_leading_comments(const Node& gone, Node& to);
// The node of loop id `loop`; nullptr when no node holds it (a launch grid's loop).
Node* loop_node(Kernel& k, int loop);
const Node* loop_node(const Kernel& k, int loop);

}  // namespace loopnest
