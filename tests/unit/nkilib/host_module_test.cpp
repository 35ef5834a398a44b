// Harness imports (host_module.h): a module outside the allowlist binds a placeholder; nothing of
// it runs, and a use inside a kernel is a typed HostOnly error at the use.
#include <filesystem>

#include <gtest/gtest.h>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

// A kernel whose body is `use` (one statement), in a file that imports the usual harness modules.
std::string kernel_using(const std::string& use) {
  return "import os\nimport subprocess\nimport socket\nimport shutil\nimport sys\nimport torch\n"
         "import torch.nn.functional as F\nfrom os import path\nfrom subprocess import run\n"
         "import neuronxcc.nki as nki\n\n\n@nki.jit\ndef kernel(x):\n    " + use + "\n    return x\n";
}

Diagnostic run_failure(const std::string& text) {
  testing::Harness h;
  auto mod = h.load_text("k.py", text);
  try {
    run_kernel(h.in, *mod, {make_array(testing::test_input({128, 4}, 1))}, KernelRunOptions{});
  } catch (const NkiError& e) {
    return e.diag;
  }
  ADD_FAILURE() << "the kernel ran";
  return {};
}

TEST(HostModule, EveryUseInAKernelIsRefusedAndNothingRuns) {
  const std::string marker = (std::filesystem::temp_directory_path() / "accelopt_host_module_ran").string();
  std::filesystem::remove(marker);
  for (const std::string& use : std::vector<std::string>{"os.system('touch " + marker + "')",
                                 "subprocess.run(['touch', '" + marker + "'])",
                                 "run(['touch', '" + marker + "'])",
                                 "shutil.copy('/etc/hostname', '" + marker + "')",
                                 "socket.create_connection(('localhost', 80))",
                                 "sys.exit(1)",
                                 "os.environ['X'] = '1'",
                                 "path.exists('" + marker + "')",
                                 "F.relu(x)",
                                 "torch.zeros(3)",
                                 "len(os.listdir('/'))",
                                 "print(os.getcwd())"}) {
    Diagnostic d = run_failure(kernel_using(use));
    EXPECT_EQ(d.kind, ErrorKind::HostOnly) << use << ": " << d.message;
    EXPECT_EQ(d.loc.line, 15u) << use;  // the use, in the kernel's body
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The sandbox's own refusals stay what they were: `open` is a Sandbox error.
TEST(HostModule, OpenStaysASandboxError) {
  EXPECT_EQ(run_failure(kernel_using("open('/etc/hostname').read()")).kind, ErrorKind::Sandbox);
}

// `except` cannot catch the refusal: the kernel cannot probe for host facilities.
TEST(HostModule, ExceptCannotCatchIt) {
  Diagnostic d = run_failure(kernel_using("try:\n        os.getcwd()\n    except Exception:\n        pass"));
  EXPECT_EQ(d.kind, ErrorKind::HostOnly) << d.message;
}

// At the top level, harness code does nothing: decorators from host modules (in a test class
// too), settings, seeds.
TEST(HostModule, TopLevelHarnessCodeDoesNothing) {
  testing::Harness h;
  auto mod = h.load_text("k.py", R"(import os
import pytest
import torch
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

os.environ["NEURON_CC_FLAGS"] = "--verbose"
torch.manual_seed(0)


@pytest.mark.parametrize("n", [1, 2])
def test_kernel(n):
    assert torch.allclose(torch.zeros(n), torch.zeros(n))


class TestKernel:
    @pytest.mark.simulation
    @pytest.mark.parametrize("n", [1, 2])
    def test_add(self, n):
        assert torch.allclose(torch.zeros(n), torch.zeros(n))


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.load(x), 1.0))
    return out
)");
  tensor::Array x = testing::test_input({128, 4}, 1);
  auto r = run_kernel(h.in, *mod, {make_array(x)}, KernelRunOptions{});
  ASSERT_EQ(r.outputs.size(), 1u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return x.get({i, j}) + 1.0; });
}

// A function called while the module loads is not top-level code: the use is refused there too.
TEST(HostModule, AHelperCalledAtLoadIsRefused) {
  testing::Harness h;
  try {
    h.load_text("k.py", "import os\n\n\ndef where():\n    return os.getcwd()\n\n\nHERE = where()\n");
    FAIL() << "loaded";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::HostOnly) << e.diag.message;
    EXPECT_EQ(e.diag.loc.line, 5u);
  }
}

}  // namespace
}  // namespace nki::lib
