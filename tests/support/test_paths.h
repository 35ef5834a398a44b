#pragma once
// Where the tests find the checkout (golden files, nkibench/, examples/) and the built binaries.
//
// The paths are compiled into one object only (test_paths.cpp, library accelopt_test_paths), not
// passed to every test as -D definitions: a definition holding the checkout's path makes every
// test object differ between worktrees, so ccache could never share them.
namespace accelopt_test_paths {
const char* source_dir();   // the repository root
const char* binary();       // the built accelopt
const char* test_binary();  // accelopt-test: the CLI with the worker's test hooks
}  // namespace accelopt_test_paths

#define ACCELOPT_SOURCE_DIR (::accelopt_test_paths::source_dir())
#define ACCELOPT_BINARY (::accelopt_test_paths::binary())
#define ACCELOPT_TEST_BINARY (::accelopt_test_paths::test_binary())
