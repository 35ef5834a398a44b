#include "lower/stage.h"

namespace lower {

void Stage::consume(const trn::Record& record) {
  if (record.kind == trn::RecordKind::Kernel) {
    // The kernel's compiler directives (a record repeats the earlier ones, so the middle end
    // stays off once it is off). What is held was issued before the middle end went off.
    const bool skip = middle_end_ && record.kernel.skip_middle_end_transformations;
    if (skip && !skipped_) flush();
    skipped_ = skipped_ || skip;
    emit(record);
    return;
  }
  if (skipped_) emit(record);
  else on_record(record);
}

void Stage::finish() {
  flush();
  next_.finish();
}

void Stage::mark(trn::Record& record) {
  record.lowered_by |= rule_bit(rule_);
  ++shared_.stats[size_t(rule_)].changed;
}

void Stage::emit_changed(trn::Record record) {
  mark(record);
  emit(record);
}

}  // namespace lower
