// free_size's sites on a size the kernel takes as a parameter with a default (param_size.cpp).
#pragma once

#include "loopnest/transform.h"

namespace loopnest {

// Reports a site for each integer default of the kernel that the task leaves and that sizes the
// form: the default doubled or halved, the kernel lifted again with it. True when the sink stopped.
bool visit_parameter_sizes(Kernel& k, const SiteSink& sink);

}  // namespace loopnest
