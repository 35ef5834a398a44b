// Test support: a kernel's text run on the test inputs of its arguments (test_input, in each
// argument's dtype), for tests that check a rewrite keeps a kernel's result (with rel_error).
#pragma once

#include <string>
#include <vector>

#include "../nkilib/kernel_harness.h"
#include "loopnest/arg_spec.h"
#include "tensor/dtype.h"
#include "tensor/ops.h"

namespace loopnest_test {

// The kernel's outputs, each flattened in row-major order.
inline std::vector<std::vector<double>> run(const std::string& path, const std::string& text,
                                            const std::vector<loopnest::ArgSpec>& args) {
  nki::lib::testing::Harness h;
  std::vector<tensor::Array> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    // In the argument's dtype (a bf16 kernel may assert it), values as the other tests give them.
    auto arr = nki::lib::testing::test_input(tensor::Shape(args[i].shape.begin(), args[i].shape.end()),
                                             static_cast<int>(i) + 1);
    auto dtype = tensor::parse_dtype(args[i].dtype);
    inputs.push_back(dtype && *dtype != tensor::DType::Float32 ? tensor::astype(arr, *dtype) : arr);
  }
  return nki::lib::testing::flattened(h.run_module(*h.load_text(path, text), inputs).outputs);
}

using nki::lib::testing::rel_error;

}  // namespace loopnest_test
