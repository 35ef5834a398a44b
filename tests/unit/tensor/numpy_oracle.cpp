#include "numpy_oracle.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tensor/ops.h"

namespace tensor::testing {

namespace fs = std::filesystem;

std::string python_with_numpy() {
  static std::string found = [] {
    for (const char* candidate : {"/usr/bin/python3", "python3"}) {
      std::string cmd = std::string(candidate) + " -c 'import numpy' >/dev/null 2>&1";
      if (std::system(cmd.c_str()) == 0) return std::string(candidate);
    }
    return std::string();
  }();
  return found;
}

NumpyOracle::NumpyOracle() {
  char tmpl[] = "/tmp/accelopt-numpy-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
}

NumpyOracle::~NumpyOracle() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string NumpyOracle::input(const Array& a) {
  std::string path = dir_ + "/in" + std::to_string(inputs_++) + ".bin";
  Array c = a.copy();
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(c.raw()), c.size() * Array::storage_bytes(c.dtype()));
  const char* storage = storage_of(a.dtype()) == Storage::F32 ? "float32"
                        : storage_of(a.dtype()) == Storage::F64 ? "float64" : "int64";
  return "np.fromfile('" + path + "', dtype='" + storage + "').reshape(" + shape_str(a.shape()) + ").astype('" +
         std::string(name(a.dtype())) + "')";
}

size_t NumpyOracle::expect(const std::string& expr) {
  exprs_.push_back(expr);
  return exprs_.size() - 1;
}

std::vector<OracleResult> NumpyOracle::run() {
  std::ostringstream py;
  py << "import numpy as np, sys, warnings\nwarnings.simplefilter('ignore')\n" << prelude_;
  py << "def emit(k, f):\n"
        "    try:\n"
        "        r = np.asarray(f())\n"
        "    except Exception as e:\n"
        "        print(k, 'ERR', str(e).replace('\\n', ' '))\n"
        "        return\n"
        "    st = 'float32' if r.dtype.kind == 'f' and r.dtype.itemsize <= 4 else ('float64' if r.dtype.kind == 'f' else 'int64')\n"
        "    np.ascontiguousarray(r.astype(st)).tofile('" << dir_ << "/out%d.bin' % k)\n"
        "    print(k, 'OK', r.dtype.name, *r.shape)\n";
  for (size_t k = 0; k < exprs_.size(); ++k) py << "emit(" << k << ", lambda: (" << exprs_[k] << "))\n";
  std::string script = dir_ + "/oracle.py";
  std::ofstream(script) << py.str();
  std::string cmd = python_with_numpy() + " " + script + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run python");
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  pclose(pipe);

  std::vector<OracleResult> results(exprs_.size());
  std::istringstream lines(output);
  std::string line;
  size_t seen = 0;
  while (std::getline(lines, line)) {
    std::istringstream ls(line);
    size_t k;
    std::string status;
    if (!(ls >> k >> status) || k >= results.size()) throw std::runtime_error("oracle output: " + output);
    ++seen;
    if (status == "ERR") {
      std::getline(ls, results[k].error);
      continue;
    }
    std::string dtype_name;
    ls >> dtype_name;
    Shape shape;
    for (int64_t d; ls >> d;) shape.push_back(d);
    auto dtype = parse_dtype(dtype_name);
    if (!dtype) throw std::runtime_error("oracle dtype " + dtype_name);
    Array a = Array::empty(shape, *dtype);
    std::ifstream in(dir_ + "/out" + std::to_string(k) + ".bin", std::ios::binary);
    in.read(static_cast<char*>(a.raw()), a.size() * Array::storage_bytes(*dtype));
    results[k].value = a;
  }
  if (seen != exprs_.size()) throw std::runtime_error("oracle output incomplete: " + output);
  return results;
}

double max_abs_diff(const Array& a, const Array& b) {
  DiffStats s = diff_stats(a, b);
  return s.max_abs;
}

double max_rel_diff(const Array& a, const Array& b) {
  Array x = astype(a, DType::Float64), y = astype(b, DType::Float64);
  if (x.shape() != y.shape()) return INFINITY;
  double worst = 0;
  for (int64_t idx = 0; idx < x.size(); ++idx) {
    double u = x.f64()[idx], v = y.f64()[idx];
    if (std::isnan(u) && std::isnan(v)) continue;
    if (u == v) continue;
    double rel = std::fabs(u - v) / std::fabs(v);
    if (!(rel <= worst)) worst = rel;
  }
  return worst;
}

bool bit_equal(const Array& a, const Array& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  Array ca = a.copy(), cb = b.copy();
  return std::memcmp(ca.raw(), cb.raw(), ca.size() * Array::storage_bytes(a.dtype())) == 0;
}

}  // namespace tensor::testing
