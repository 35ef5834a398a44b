// free_size's sites on a size the kernel takes as a parameter with a default (param_size.cpp).
#pragma once

#include "loopnest/transform.h"

namespace loopnest {

// Reports a site for each integer default of the kernel that the task leaves and that sizes the
// form: the default doubled or halved, the kernel lifted again with it. True when the sink stopped.
// `dividing_constants`: also a kernel or module constant the kernel only divides a size by
// (`T // F`, a tile width its trips and reshaped views follow).
bool visit_parameter_sizes(Kernel& k, const SiteSink& sink, bool dividing_constants);

// A size constant free_size may change (`var`, site parameter `default` = where), set from `from`
// to `to`, and the kernel lifted again from the edited text (`after`).
struct SizeEdit {
  std::string var, where;
  int64_t from = 0, to = 0;
  Kernel after;
};
// The edits of the kernel's size constants to `from * factor` for each factor that pass free_size's
// checks (the form changes; the same output elements written; shapes still agree).
std::vector<SizeEdit> widened_sizes(const Kernel& k, const std::vector<int64_t>& factors);
// The same for each value `values(from)` gives (broadcast_on_chip narrows a width to a PSUM bank).
std::vector<SizeEdit> resized_sizes(const Kernel& k, const std::function<std::vector<int64_t>(int64_t)>& values);

}  // namespace loopnest
