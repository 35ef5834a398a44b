#include "nki/lib/loop_range.h"

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/range_loops.h"
#include "nki/lib/kernel_context.h"

namespace nki::lib {

namespace {

class LoopIterator : public Iterator {
 public:
  explicit LoopIterator(const LoopRangeObj& r) : range_(r), value_(r.start) {
    info_.kind = r.kind;
    info_.trip_count = *r.length();
  }
  ~LoopIterator() override {
    if (open_ && KernelContext::active()) --KernelContext::current().device_loop_depth;  // left by break or an error
  }

  bool next(Value& out) override {
    KernelContext& ctx = KernelContext::current();
    if (!started_) {
      started_ = true;
      info_.loop_id = ctx.new_loop_id();
      ctx.emit_loop(trn::RecordKind::LoopBegin, info_);
      // A static_range is unrolled while tracing: its body is kernel-level code.
      open_ = range_.kind != trn::LoopKind::Static;
      if (open_) ++ctx.device_loop_depth;
    }
    bool more = range_.step > 0 ? value_ < range_.stop : value_ > range_.stop;
    if (!more) {
      if (!ended_) ctx.emit_loop(trn::RecordKind::LoopEnd, info_);
      ended_ = true;
      if (open_) --ctx.device_loop_depth;
      open_ = false;
      return false;
    }
    ctx.emit_loop(trn::RecordKind::LoopIteration, info_);
    ++info_.iteration;
    out = Value::from_int(value_);
    value_ += range_.step;
    return true;
  }

 private:
  LoopRangeObj range_;
  int64_t value_;
  trn::LoopInfo info_;
  bool started_ = false, ended_ = false, open_ = false;
};

}  // namespace

std::string LoopRangeObj::type_name() const { return trn::to_string(kind); }

std::string LoopRangeObj::repr() const { return fmt::format("{}({}, {}, {})", trn::to_string(kind), start, stop, step); }

std::unique_ptr<Iterator> LoopRangeObj::iter(Interpreter& in) { return std::make_unique<LoopIterator>(*this); }

std::optional<int64_t> LoopRangeObj::length() const {
  if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / -step : 0;
}

Value make_loop_range(trn::LoopKind kind, const std::vector<Value>& args, std::string_view api) {
  std::vector<int64_t> v;
  for (auto& a : args) {
    if (a.is_none()) continue;
    v.push_back(to_int(a, api));
  }
  int64_t start = 0, stop = 0, step = 1;
  if (v.size() == 1) stop = v[0];
  else if (v.size() == 2) start = v[0], stop = v[1];
  else if (v.size() == 3) start = v[0], stop = v[1], step = v[2];
  else throw NkiError(ErrorKind::Type, fmt::format("{} expects 1 to 3 integer arguments, got {}", api, v.size()));
  if (step == 0) throw NkiError(ErrorKind::Value, fmt::format("{} step must not be zero", api));
  return Value(std::make_shared<LoopRangeObj>(kind, start, stop, step));
}

}  // namespace nki::lib

namespace nki::lib {

namespace {

// A kernel's `for i in range(n)` as the loop its API makes of it. In the newer `nki` API the loop
// kinds are aliases of `range` ("affine_range etc. kept as aliases, deprecated to plain range in
// NKI 0.7"; all static loops are unrolled at specialization: nki-language.md section 2), so a
// range loop is recorded as the affine_range it is equal to, and the compiler stage and the
// scheduler treat both spellings alike (`SpellingPair.*/newer_api_range_vs_affine_range`). In the
// legacy neuronxcc API the compiler rewrites `range` to `sequential_range` ("Python `range(...)`
// inside a kernel is rewritten to `sequential_range`", LANG; nki-language.md section 5), so there
// it is recorded as one (`SpellingPair.*/legacy_range_vs_sequential_range`; docs/simulator.md,
// Dependences and program order). Which API a kernel uses is what it imported: a kernel importing
// `neuronxcc` is a legacy kernel whatever else it imports.
class RangeLoopRecorder : public RangeLoopObserver {
 public:
  RangeLoopRecorder(KernelContext& ctx, trn::LoopKind kind, int64_t trips) : ctx_(ctx) {
    info_.kind = kind;
    info_.trip_count = trips;
    info_.loop_id = ctx.new_loop_id();
    ctx_.emit_loop(trn::RecordKind::LoopBegin, info_);
    if (kind == trn::LoopKind::Sequential) ++ctx_.device_loop_depth;  // a legacy kernel's range loop
  }
  void iteration() override {
    ctx_.emit_loop(trn::RecordKind::LoopIteration, info_);
    ++info_.iteration;
  }
  void end() override {
    if (ended_) return;
    ended_ = true;
    if (info_.kind == trn::LoopKind::Sequential) --ctx_.device_loop_depth;
    try {
      ctx_.emit_loop(trn::RecordKind::LoopEnd, info_);
    } catch (...) {  // called while unwinding: the error in flight is the one to report
    }
  }

 private:
  KernelContext& ctx_;
  trn::LoopInfo info_;
  bool ended_ = false;
};

std::unique_ptr<RangeLoopObserver> observe_range_loop(Interpreter& in, int64_t trips) {
  if (!KernelContext::active()) return nullptr;
  KernelContext& ctx = KernelContext::current();
  // A legacy kernel's range loop is observed also when not tracing: it is a device loop for
  // the kernel-level rules (KernelContext::device_loop_depth); emit_loop records nothing then.
  if (imported(in, "neuronxcc")) return std::make_unique<RangeLoopRecorder>(ctx, trn::LoopKind::Sequential, trips);
  if (!ctx.tracing()) return nullptr;
  if (imported(in, "nki")) return std::make_unique<RangeLoopRecorder>(ctx, trn::LoopKind::Affine, trips);
  return nullptr;
}

}  // namespace

void install_range_loop_recorder(Interpreter& in) { set_range_loop_observer(in, observe_range_loop); }

}  // namespace nki::lib
