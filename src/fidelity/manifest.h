// The fidelity suite's manifest (fidelity/manifest.yaml, format in fidelity/README.md): every public
// real-hardware measurement the suite re-creates, as entries with their kernel, reference, shapes,
// measured number, metric kind, source, generation and role.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "eval/kernel_exec.h"

namespace fidelity {

// What the measured number is, and therefore which simulated quantity it is compared with.
enum class Metric {
  Bench,         // nki.benchmark NeuronCore latency, percentile not labelled (the script prints p99)
  P50,           // NCL p50
  P99,           // NCL p99
  ProfileTotal,  // profiler total_time
  Profile,       // "device execution time" of an older neuron-profile view (same span as total_time)
  TeActive,      // TensorE active time
  ActActive,     // ScalarE active time
  DmaActive,     // DMA active time (at least one DMA moving)
  II,            // initiation interval of a chain of instructions: latency / per
  None,          // no comparable simulated quantity: the entry runs but is not compared
};

Metric parse_metric(const std::string& text);  // throws std::invalid_argument
std::string to_string(Metric m);
// NCL latencies include the fixed per-launch cost (trainium-measurements.md §0); total_time does not.
bool includes_launch_cost(Metric m);
// The metric is an end-to-end latency (NCL or total_time), not an engine's share of it.
bool is_latency(Metric m);

enum class Role { Calibrate, Validate };
std::string to_string(Role r);

// When the numerics check runs: always (at check_params), or only on request (the kernel hard-codes
// a shape too large to check quickly).
enum class CheckMode { Run, Slow };

struct Entry {
  std::string group, name;  // id() = group/name
  bool ladder = false;      // the group is an ordered ladder of versions
  std::string gen;          // "trn1" | "trn2"
  std::string gen_note;
  Role role = Role::Validate;
  std::string description;

  std::string kernel_path, reference_path;  // absolute or relative to the working directory
  eval::KernelEntry entry;
  std::string dtype;  // dtype of the floating kernel inputs when profiled ("" = as the reference gives)
  // Module constants of the reference overridden for the profile and for the check, as Python
  // literals ("8192", "'copy'").
  std::map<std::string, std::string> params, check_params;
  // Constants assigned in the kernel's text that the source's author edited between measured runs
  // (CS149's ROW_CHUNK, FREE_DIM): each `NAME = ...` line is set to the value, as they did.
  std::map<std::string, std::string> constants;
  CheckMode check = CheckMode::Run;
  double tolerance = 2e-5;

  Metric metric = Metric::ProfileTotal;
  int per = 1;                // the measurement is one of `per` equal parts of the simulated quantity
  double measured = 0;        // as the source prints it, in `unit`
  std::string unit;           // "ns" | "us" | "ms" | "tflops"
  double flops = 0;           // for unit tflops: the hardware FLOPs the rate is over
  std::string tag, source, code, notes;
  // The real profile's summary fields (name -> value) when the measurement is a recorded profile
  // (`profiles`): the suite compares every field we emit with it (fidelity/fields.h).
  std::map<std::string, double> recorded_profile;

  std::string id() const { return group + "/" + name; }
  double measured_us() const;  // the measurement as a time in microseconds
};

struct Manifest {
  std::string path;
  std::vector<Entry> entries;  // in manifest order (a ladder's entries in step order)
};

struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Loads and validates a manifest; paths in it are resolved relative to the manifest's directory.
// Throws ManifestError naming the file, the line and what is wrong.
Manifest load_manifest(const std::string& path);

// The default manifest: $ACCELOPT_FIDELITY_MANIFEST, ./fidelity/manifest.yaml, or one found walking
// up from the running executable (a build tree inside the checkout). "" if none.
std::string default_manifest_path();

}  // namespace fidelity
