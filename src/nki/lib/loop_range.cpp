#include "nki/lib/loop_range.h"

#include <fmt/format.h>

#include "nki/lib/kernel_context.h"

namespace nki::lib {

namespace {

class LoopIterator : public Iterator {
 public:
  explicit LoopIterator(const LoopRangeObj& r) : range_(r), value_(r.start) {
    info_.kind = r.kind;
    info_.trip_count = *r.length();
  }
  ~LoopIterator() override = default;

  bool next(Value& out) override {
    KernelContext& ctx = KernelContext::current();
    if (!started_) {
      started_ = true;
      info_.loop_id = ctx.new_loop_id();
      ctx.emit_loop(trn::RecordKind::LoopBegin, info_);
    }
    bool more = range_.step > 0 ? value_ < range_.stop : value_ > range_.stop;
    if (!more) {
      if (!ended_) ctx.emit_loop(trn::RecordKind::LoopEnd, info_);
      ended_ = true;
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
  bool started_ = false, ended_ = false;
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
