// Per-run state of the nki.language / nki.isa libraries: numerics on or off, the trace sink,
// tensor ids, and the one pending instruction record.
//
// Threading contract: a context is active on one thread at a time (ContextScope installs it as
// the thread's current context); library calls on a thread without an active context use a
// thread-local default context (numerics on, no trace).
//
// Why pending records: `t[i] = nl.load(...)` first evaluates the call (which emits an instruction
// writing a fresh tile) and then assigns. The hardware instruction writes straight into `t[i]`, so
// the instructions of the newest library call stay pending until the next library event; an
// assignment of a result one of them produced retargets that instruction's output operand to the
// destination instead of emitting a copy. The rule is per call, not per instruction: a call may
// emit several instructions (nl.matmul without transpose_x inserts transposes before its matmul),
// an instruction may write other outputs besides its result (reduce_res), and
// `t[i] = nisa.activation_reduce(...)` writes `t[i]` as directly as `t[i] = nisa.activation(...)`.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "nki/diagnostics.h"
#include "tensor/dtype.h"
#include "trn/trace.h"

namespace nki {
class Interpreter;
class Object;
}  // namespace nki

namespace nki::lib {

struct TensorStorage;

// The first instruction that read or wrote a narrow float format (bf16, fp16, fp8, tf32): the
// evaluation judges the kernel's precision by these (eval/precision.h), never by its text.
struct NarrowFormatUse {
  tensor::DType dtype = tensor::DType::Float32;
  std::string api;  // "nl.load", "nisa.nc_matmul", ...
  SourceLoc loc;    // the kernel statement
};

class KernelContext {
 public:
  bool numerics = true;
  trn::TraceSink* sink = nullptr;
  Interpreter* interpreter = nullptr;
  uint64_t instructions = 0;  // instruction records emitted
  std::vector<double> act_registers;  // Scalar Engine accumulation registers (one per partition)
  std::vector<double> vector_accumulators;  // Vector Engine ones (nisa.tensor_scalar_cumulative)
  int nc_version = 2;  // nisa.get_nc_version() (KernelRunOptions::nc_version)
  // Device loops open now (nl.affine_range / sequential_range, and `range` in a legacy kernel,
  // which the compiler makes a sequential_range): a legacy kernel creates shared_hbm tensors only
  // outside them (err_shared_hbm_must_in_kernel_level, language_creation.cpp).
  int device_loop_depth = 0;
  uint64_t rng_state = 0x853C49E6748FEA9BULL;  // nl.rand / dropout generator (nl.random_seed sets it)
  std::vector<NarrowFormatUse> narrow_formats;  // one entry per narrow format used, in order of first use

  static KernelContext& current();
  // Whether a ContextScope is installed on this thread (a kernel run is in progress).
  static bool active();

  uint32_t new_tensor_id() { return next_tensor_id_++; }
  uint32_t new_loop_id() { return next_loop_id_++; }
  bool tracing() const { return sink != nullptr; }

  // A fresh Alloc record for `storage`; emitted now (declared tensors, inputs).
  void emit_alloc(const TensorStorage& storage);
  // Starts a new instruction: flushes the pending one and returns the record to fill (reused:
  // vectors keep their capacity). Returns nullptr when not tracing.
  trn::Record* begin_instruction(trn::Opcode op, trn::Engine engine);
  // Marks the record returned by begin_instruction as complete; `result` is the fresh tile it
  // writes (nullptr when it writes an existing tensor) and `result_storage` its storage, whose
  // Alloc record is emitted only if the result is not assigned into an existing tensor.
  void end_instruction(const Object* result, const TensorStorage* result_storage);
  // The pending instruction whose fresh result tile is `value`, if any (see file comment).
  trn::Record* pending_for(const Object* value);
  // That instruction writes `to` instead of its fresh tile: the tile's Alloc record is dropped,
  // and the later instructions of the same call that read or write the tile use `to`.
  void retarget_pending(const Object* value, const trn::Operand& to);
  void emit_loop(trn::RecordKind kind, const trn::LoopInfo& info);
  // A Kernel record (decorator attributes of the kernel being called).
  void emit_kernel(const trn::KernelInfo& info);
  // Adds compiler directives to the run's attributes and records them (one Kernel record with
  // every attribute set so far, so a later record never switches an earlier one off).
  void add_directives(const trn::KernelInfo& info);

  // SPMD launch state (kernel[grid](...)): the grid and the running program's coordinates;
  // empty outside a launch (one program, id 0).
  std::vector<int64_t> grid, program;
  // Bodies of jitted kernels running now (called without a grid): a grid launch inside one is
  // err_nested_kernel_with_spmd_grid, as inside a launched program.
  int jit_depth = 0;
  // shared_hbm tensors the launch's first program created, in creation order: the other
  // programs get the same tensors (one output shared by all programs).
  std::vector<std::shared_ptr<TensorStorage>> launch_shared;
  size_t launch_shared_next = 0;
  bool launch_first_program = true;
  void flush();  // emits the pending records (end of run, before other records)
  // Every instruction operand and result passes its element format here (loads, compute, stores).
  void note_format(tensor::DType dtype, std::string_view api) {
    if (tensor::is_narrow_float(dtype)) note_narrow_format(dtype, api);
  }

 private:
  void note_narrow_format(tensor::DType dtype, std::string_view api);
  void send(trn::Record& record);
  void fill_alloc(trn::Record& record, const TensorStorage& storage);

  // One pending instruction: its record, the Alloc of its fresh result and that result.
  struct Pending {
    trn::Record inst;
    trn::Record alloc;
    bool has_alloc = false;
    const Object* result = nullptr;
    uint32_t result_tensor = 0;  // the fresh tile's tensor id
  };
  // The index of the pending instruction whose result is `value` (pending_count_ if none).
  size_t find_pending(const Object* value) const;

  uint32_t next_tensor_id_ = 1;
  uint32_t next_loop_id_ = 0;
  uint64_t seq_ = 0;
  // The pending instructions of one library call, in order: the first `pending_count_` entries
  // are complete; the next one, if begun, is being filled. A deque, so that a record handed out
  // by begin_instruction stays put while the call begins another.
  std::deque<Pending> pending_;
  size_t pending_count_ = 0;
  uint64_t pending_call_ = 0;  // Interpreter::native_call() of the pending instructions
  trn::Record scratch_;
  trn::KernelInfo directives_;
};

// Installs a context as the thread's current one for its lifetime.
class ContextScope {
 public:
  explicit ContextScope(KernelContext& ctx);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  KernelContext* previous_;
};

// The kernel source line of the statement being executed (0 when unknown).
uint32_t current_line(KernelContext& ctx);

}  // namespace nki::lib
