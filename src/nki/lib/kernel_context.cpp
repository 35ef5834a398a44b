#include "nki/lib/kernel_context.h"

#include <algorithm>

#include "nki/interpreter.h"
#include "nki/lib/nki_tensor.h"

namespace nki::lib {

namespace {
thread_local KernelContext* g_current = nullptr;
}

KernelContext& KernelContext::current() {
  if (g_current) return *g_current;
  thread_local KernelContext fallback;
  return fallback;
}

bool KernelContext::active() { return g_current != nullptr; }

ContextScope::ContextScope(KernelContext& ctx) : previous_(g_current) { g_current = &ctx; }
ContextScope::~ContextScope() { g_current = previous_; }

uint32_t current_line(KernelContext& ctx) {
  return ctx.interpreter ? ctx.interpreter->current_loc().line : 0;
}

void KernelContext::note_narrow_format(tensor::DType dtype, std::string_view api) {
  for (const auto& use : narrow_formats)
    if (use.dtype == dtype) return;
  narrow_formats.push_back({dtype, std::string(api), interpreter ? interpreter->current_loc() : SourceLoc{}});
}

void KernelContext::send(trn::Record& record) {
  record.seq = seq_++;
  if (record.kind == trn::RecordKind::Instruction) ++instructions;
  sink->consume(record);
}

void KernelContext::fill_alloc(trn::Record& r, const TensorStorage& st) {
  r.kind = trn::RecordKind::Alloc;
  r.line = current_line(*this);
  trn::AllocInfo& a = r.alloc;
  a.tensor_id = st.id;
  a.buffer = st.buffer;
  a.blocks = uint32_t(st.blocks());
  a.partitions = uint16_t(st.partitions());
  int64_t bytes = st.free_elements() * tensor::itemsize(st.dtype);
  a.bytes_per_partition = uint64_t(st.on_chip() ? bytes : tensor::num_elements(st.shape) * tensor::itemsize(st.dtype));
  // The first free dim of an SBUF tile with several free dims (AllocInfo::regions).
  const size_t first_free = size_t(st.partition_axis) + 1;
  a.regions = st.buffer == trn::BufferKind::Sbuf && st.shape.size() > first_free + 1
                  ? uint32_t(std::max<int64_t>(st.shape[first_free], 1))
                  : 1;
  a.is_kernel_input = st.is_input;
  a.is_kernel_output = false;
  a.zero_initialized = st.zero_initialized;
  a.name = st.name;
}

void KernelContext::emit_alloc(const TensorStorage& storage) {
  if (!sink) return;
  flush();
  fill_alloc(scratch_, storage);
  send(scratch_);
}

trn::Record* KernelContext::begin_instruction(trn::Opcode op, trn::Engine engine) {
  // The instructions of one library call stay pending together (see the header comment); an
  // instruction of user code (an operator) or of another call ends the group.
  uint64_t call = interpreter ? interpreter->native_call() : 0;
  if (call == 0 || call != pending_call_) flush();
  pending_call_ = call;
  if (pending_.size() <= pending_count_) pending_.emplace_back();
  Pending& p = pending_[pending_count_];
  p.has_alloc = false;
  p.result = nullptr;
  trn::Record& r = p.inst;
  r.inst.inputs.clear();
  r.inst.outputs.clear();
  if (!sink) {
    // Without a sink only the pending identity is tracked (assignment semantics and counts
    // must not depend on whether a trace is collected).
    ++instructions;
    return nullptr;
  }
  r.kind = trn::RecordKind::Instruction;
  r.line = 0;
  trn::InstructionInfo& i = r.inst;
  i.opcode = op;
  i.engine = engine;
  i.accumulate = false;
  i.engine_chosen_by_user = false;
  i.no_scalar_engine = false;
  i.flops = 0;
  i.matmul_rows = i.matmul_stationary_cols = i.matmul_moving_cols = 0;
  i.activation_func = 0;
  i.has_reduce = false;
  // Every field an instruction may set: the record is reused, and a field left from the last
  // instruction in this slot (a tensor_scalar's op1) was traced on the next ones.
  i.stationary_onezero = i.moving_onezero = false;
  i.pe_cells = 0;
  i.alu = i.scalar_alu = i.alu1 = trn::AluOp::Unknown;
  i.nonzero_fill = false;
  return &r;
}

void KernelContext::end_instruction(const Object* result, const TensorStorage* result_storage) {
  if (pending_.size() <= pending_count_) pending_.emplace_back();
  Pending& p = pending_[pending_count_++];
  p.result = result;
  p.result_tensor = result_storage ? result_storage->id : 0;
  p.has_alloc = sink && result_storage;
  if (p.has_alloc) fill_alloc(p.alloc, *result_storage);
}

size_t KernelContext::find_pending(const Object* value) const {
  if (value)
    for (size_t k = 0; k < pending_count_; ++k)
      if (pending_[k].result == value) return k;
  return pending_count_;
}

trn::Record* KernelContext::pending_for(const Object* value) {
  size_t k = find_pending(value);
  return k < pending_count_ ? &pending_[k].inst : nullptr;
}

void KernelContext::retarget_pending(const Object* value, const trn::Operand& to) {
  size_t index = find_pending(value);
  if (index == pending_count_) return;
  Pending& p = pending_[index];
  p.has_alloc = false;
  if (!sink) return;
  // The output that is the fresh tile (an instruction may write others first: reduce_res).
  auto& outputs = p.inst.inst.outputs;
  auto out = std::find_if(outputs.begin(), outputs.end(),
                          [&](const trn::Operand& o) { return o.tensor_id == p.result_tensor; });
  if (out == outputs.end()) return;
  trn::Operand from = *out;
  *out = to;
  // The call's later instructions that access the fresh tile access the same elements of `to`
  // (an access of the whole tile becomes `to` itself; a part of it, the same part of `to`).
  auto move = [&](trn::Operand& op) {
    if (op.buffer != from.buffer || op.tensor_id != from.tensor_id) return;
    if (op == from) {
      op = to;
      return;
    }
    op.buffer = to.buffer;
    op.tensor_id = to.tensor_id;
    op.block = to.block;
    op.partition_start = uint16_t(op.partition_start - from.partition_start + to.partition_start);
    op.offset += to.offset - from.offset;
  };
  for (size_t k = index + 1; k < pending_count_; ++k) {
    for (auto& op : pending_[k].inst.inst.inputs) move(op);
    for (auto& op : pending_[k].inst.inst.outputs) move(op);
  }
}

void KernelContext::emit_loop(trn::RecordKind kind, const trn::LoopInfo& info) {
  if (!sink) return;
  flush();
  scratch_.kind = kind;
  scratch_.line = current_line(*this);
  scratch_.loop = info;
  send(scratch_);
}

void KernelContext::emit_kernel(const trn::KernelInfo& info) {
  if (!sink) return;
  flush();
  scratch_.kind = trn::RecordKind::Kernel;
  scratch_.line = current_line(*this);
  scratch_.kernel = info;
  send(scratch_);
}

void KernelContext::add_directives(const trn::KernelInfo& info) {
  directives_.skip_middle_end_transformations |= info.skip_middle_end_transformations;
  directives_.enable_stack_allocator |= info.enable_stack_allocator;
  directives_.force_auto_alloc |= info.force_auto_alloc;
  directives_.no_reorder |= info.no_reorder;
  directives_.multi_buffer |= info.multi_buffer;
  emit_kernel(directives_);
}

namespace {

// An instruction whose mask is false everywhere writes no element: the compiler skips it at no
// runtime cost (nki-language.md 3.9), so the trace holds no instruction for it (a store of zero
// bytes divided by its zero rows in the DMA cost).
bool writes_nothing(const trn::InstructionInfo& inst) {
  return !inst.outputs.empty() && std::all_of(inst.outputs.begin(), inst.outputs.end(), [](const trn::Operand& o) {
           return o.partitions == 0 || o.free_elements == 0;
         });
}

}  // namespace

void KernelContext::flush() {
  size_t n = pending_count_;
  pending_count_ = 0;
  if (!sink) return;
  for (size_t k = 0; k < n; ++k) {
    if (pending_[k].has_alloc) send(pending_[k].alloc);
    if (!writes_nothing(pending_[k].inst.inst)) send(pending_[k].inst);
  }
}

}  // namespace nki::lib
