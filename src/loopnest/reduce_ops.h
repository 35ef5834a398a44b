// What the reductions on the form (reduce.cpp, reduce_list.cpp) read of an operation: a row sum,
// its data and axis, an activation that can also sum its rows, and that activation rewritten to.
#pragma once

#include "loopnest/form.h"
#include "loopnest/analysis.h"
#include "loopnest/transform.h"

namespace loopnest::reduce_ops {

// The data parameter of a reduction: nisa.tensor_reduce(data=...), nl.sum(x, ...).
const char* data_param(const Op& r);
// The axis a reduction reduces when it is one axis: the last of a 2-D tile; -1 otherwise.
int reduced_axis(const Op& r);
bool is_true(const Operand* o);
// A sum along the last axis: nisa.tensor_reduce(op=add) or nl.sum.
bool row_sum(const Op& r);
// An activation that can also reduce: nisa.activation, or a language unary function (nl.square).
bool plain_activation(const Op& a);
// `act` as nisa.activation_reduce summing its rows into `res` (reduce_op=add).
void to_activation_reduce(Op& act, Operand res);
// fold_activation_reduce's sites where the activation makes the items of a list (a comprehension
// lifted as its loop) and a chain carried over the list sums them (reduce_list.cpp).
bool visit_list_sums(Kernel& k, const SiteSink& sink);

}  // namespace loopnest::reduce_ops
