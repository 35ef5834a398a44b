// One kernel argument as a task passes it: an array (shape, dtype) or a Python scalar. The lifter
// needs them to evaluate `x.shape` and whole-tensor accesses; tasks compute them from the
// reference's get_inputs / transform_to_nki_inputs (bench/arg_specs.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopnest {

struct ArgSpec {
  bool is_array = true;
  std::vector<int64_t> shape;
  std::string dtype = "float32";  // arrays; "int" / "float" for scalars
  double scalar = 0;
  // A tuple or list of scalars (`tile_shape=(128, 256)`): its items; is_array is false.
  bool is_tuple = false;
  std::vector<ArgSpec> items;
};

// Arrays named by a first line `# inputs: 128x512 2x128x512` (the test kernels' convention);
// empty when the text has no such line.
std::vector<ArgSpec> arg_specs_from_header(const std::string& text);

}  // namespace loopnest
