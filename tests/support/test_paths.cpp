#include "support/test_paths.h"

// The only translation unit compiled with the checkout's paths (see test_paths.h).
namespace accelopt_test_paths {
const char* source_dir() { return ACCELOPT_SOURCE_DIR_PATH; }
const char* binary() { return ACCELOPT_BINARY_PATH; }
const char* test_binary() { return ACCELOPT_TEST_BINARY_PATH; }
}  // namespace accelopt_test_paths
