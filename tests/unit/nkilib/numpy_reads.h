// Test support for the view and DMA-pairing tests: a kernel module on one HBM input of shape
// (4, 6, 8) holding 0..191, which also defines `ref(a)`, the numpy expression of what the kernel
// returns (the interpreter's numpy module; tests/golden/numpy/view_equivalents.py checks those
// expressions against real numpy). The kernel's output must hold ref's elements in row-major order.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_harness.h"
#include "nki/diagnostics.h"
#include "tensor/ops.h"

namespace nki::lib::testing {

inline tensor::Array iota_468() {
  std::vector<double> v(192);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  return tensor::Array::from_values({4, 6, 8}, tensor::DType::Float32, v);
}

// Runs module `text` on iota_468 and compares its one output with `ref`'s, element by element in
// row-major order; `same_shape`: the shapes must match too (else only the element counts).
inline void expect_kernel_reads_as_numpy(const std::string& text, bool same_shape) {
  Harness h;
  auto mod = h.load_text("reads.py", text);
  tensor::Array want = to_array(h.in, h.in.call(h.in.get_attr(Value(mod), "ref"), CallArgs{{make_array(iota_468())}, {}}));
  KernelRunResult r;
  try {
    r = h.run_module(*mod, {iota_468()});
  } catch (const NkiError& e) {
    FAIL() << render(e.diag);
  }
  ASSERT_EQ(r.outputs.size(), 1u);
  if (same_shape) ASSERT_EQ(r.outputs[0].shape(), want.shape());
  int64_t n = tensor::num_elements(want.shape());
  ASSERT_EQ(tensor::num_elements(r.outputs[0].shape()), n);
  tensor::Array got = tensor::reshape(r.outputs[0].contiguous(), {n}), exp = tensor::reshape(want.contiguous(), {n});
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got.get({i}), exp.get({i})) << "element " << i;
}

}  // namespace nki::lib::testing
