// The function of a kernel file that `--entry NAME` (or the file's default) names, chosen as the
// run chooses it (nki::lib::choose_kernel), for the commands that read the kernel instead of
// running it (`rewrite`, `parse --emit loops`): the same function, the same errors as `eval`.
#pragma once

#include <string>

#include <fmt/core.h>

#include "cli/command.h"
#include "nki/lib/kernel_choice.h"

namespace cli {

// True when the file has a function to read for `entry`; else prints the error as `eval` words
// it ("FILE: error: ... choose the one to run with --entry NAME ...", or the load's diagnostic).
inline bool check_entry(const std::string& path, const std::string& text, const std::string& entry) {
  nki::lib::KernelChoice choice = nki::lib::choose_kernel(path, text, entry);
  if (choice.ok()) return true;
  if (choice.load_error) fmt::print(stderr, "{}", nki::render(*choice.load_error));
  else fmt::print(stderr, "{}: error: {}\n", path, choice.message(kEntryOption));
  return false;
}

}  // namespace cli
