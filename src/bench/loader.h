// Loads a benchmark directory in the NKIBench layout (nkibench.md):
//   summary.json   {task: {seed: "./seeds/T.yaml", cases: {id: {values: {...},
//                   impls: [{task: "./reference/R.py", kernel: "./kernels/K.py"}], tolerance?}}}}
//   seeds/T.yaml, reference/*.py, kernels/*.py
// A user adds a task by adding files. Problems with one entry (missing fields, missing files, a
// reference without `forward`, a kernel without `kernel`) become one-line errors naming the file
// and what is missing; the other cases still load.
#pragma once

#include <string>
#include <vector>

#include "bench/task_case.h"

namespace bench {

struct Suite {
  std::string root;
  std::vector<TaskCase> cases;      // in summary.json order of tasks, then cases
  std::vector<std::string> errors;  // one line each: "path: what is wrong"
};

// Throws std::runtime_error when summary.json itself is missing or is not a JSON object.
Suite load_suite(const std::string& root);

// Checks that a reference file defines get_inputs, forward, transform_to_nki_inputs and
// transform_nki_outputs (text-level: the interpreter reports anything deeper). Returns "" when
// fine, else the one-line error.
std::string check_reference_text(const std::string& path, const std::string& text);
// Checks that a kernel file has a function to run, by the rule every path uses
// (nki::lib::find_kernel_entry on the loaded module: `kernel`, `optimized_kernel`, else the
// file's one decorated kernel, however it is bound). A file that does not load is not judged
// here: the evaluation reports its error with file, line and status. Returns "" or the error.
std::string check_kernel_text(const std::string& path, const std::string& text);

// Reads a whole file; throws std::runtime_error("path: cannot read file").
std::string read_file(const std::string& path);

// The kernel to use for `c` from a directory of candidate kernels: `<task>_<config>_0.py` (the
// bundled kernel's file name) or `<task>.py`; "" when neither exists.
std::string find_kernel_in(const std::string& dir, const TaskCase& c);

}  // namespace bench
