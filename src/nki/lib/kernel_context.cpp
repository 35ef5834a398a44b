#include "nki/lib/kernel_context.h"

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
  flush();
  if (!sink) {
    // Without a sink only the pending identity is tracked (assignment semantics and counts
    // must not depend on whether a trace is collected).
    ++instructions;
    pending_.inst.inputs.clear();
    pending_.inst.outputs.clear();
    return nullptr;
  }
  trn::Record& r = pending_;
  r.kind = trn::RecordKind::Instruction;
  r.line = 0;
  trn::InstructionInfo& i = r.inst;
  i.opcode = op;
  i.engine = engine;
  i.inputs.clear();
  i.outputs.clear();
  i.accumulate = false;
  i.engine_chosen_by_user = false;
  i.flops = 0;
  i.matmul_rows = i.matmul_stationary_cols = i.matmul_moving_cols = 0;
  i.activation_func = 0;
  i.has_reduce = false;
  i.alu = trn::AluOp::Unknown;
  return &r;
}

void KernelContext::end_instruction(const Object* result, const TensorStorage* result_storage) {
  has_pending_ = true;
  pending_result_ = result;
  pending_has_alloc_ = sink && result_storage;
  if (pending_has_alloc_) fill_alloc(pending_alloc_, *result_storage);
}

trn::Record* KernelContext::pending_for(const Object* value) {
  if (!has_pending_ || !value || value != pending_result_) return nullptr;
  return &pending_;
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

void KernelContext::flush() {
  if (!has_pending_) return;
  has_pending_ = false;
  pending_result_ = nullptr;
  if (!sink) return;
  if (pending_has_alloc_) send(pending_alloc_);
  pending_has_alloc_ = false;
  send(pending_);
}

}  // namespace nki::lib
