#include "lower/stage.h"

namespace lower {

void Stage::consume(const trn::Record& record) {
  if (record.kind == trn::RecordKind::Kernel) {
    // The kernel's compiler directives; everything held so far was issued before them.
    flush();
    skipped_ = middle_end_ && record.kernel.skip_middle_end_transformations;
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
