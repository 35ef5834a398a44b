#include "nki/nesting.h"

#include <algorithm>

#include "nki/diagnostics.h"

namespace nki {
namespace {

thread_local int t_depth = 0;
thread_local std::vector<const Object*> t_printing;
// The objects waiting to be freed by the outermost release (null when none is running).
thread_local std::vector<ObjectPtr>* t_release_queue = nullptr;

void queue(Value& v, std::vector<ObjectPtr>& q) {
  if (v.is_object()) q.push_back(v.take_object());
}

template <class Queue>
void release(Queue&& queue_items) {
  if (t_release_queue) {
    queue_items(*t_release_queue);
    return;
  }
  std::vector<ObjectPtr> pending;
  t_release_queue = &pending;
  queue_items(pending);
  // Each object freed here queues what it held instead of freeing it recursively.
  while (!pending.empty()) {
    ObjectPtr last = std::move(pending.back());
    pending.pop_back();
    last.reset();
  }
  t_release_queue = nullptr;
}

}  // namespace

NestingGuard::NestingGuard(const char* what) {
  if (t_depth >= kMaxValueNesting)
    throw NkiError(LimitKind::Depth, std::string("maximum recursion depth exceeded ") + what);
  ++t_depth;
}

NestingGuard::~NestingGuard() { --t_depth; }

ReprGuard::ReprGuard(const Object* self)
    : self_(self),
      active_(std::find(t_printing.begin(), t_printing.end(), self) == t_printing.end()),
      depth_("while getting the repr of an object") {
  if (active_) t_printing.push_back(self_);
}

ReprGuard::~ReprGuard() {
  if (active_) t_printing.pop_back();
}

void release_values(std::vector<Value>& values) {
  bool any_object = std::any_of(values.begin(), values.end(), [](const Value& v) { return v.is_object(); });
  if (!any_object) return;
  release([&](std::vector<ObjectPtr>& q) {
    for (auto& v : values) queue(v, q);
  });
}

void release_pairs(std::vector<std::pair<Value, Value>>& pairs) {
  if (pairs.empty()) return;
  release([&](std::vector<ObjectPtr>& q) {
    for (auto& [key, value] : pairs) {
      queue(key, q);
      queue(value, q);
    }
  });
}

}  // namespace nki
