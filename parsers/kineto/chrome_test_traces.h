#ifndef TRACELINT_PARSERS_KINETO_CHROME_TEST_TRACES_H_
#define TRACELINT_PARSERS_KINETO_CHROME_TEST_TRACES_H_

// Small Chrome trace JSON files as TensorFlow, JAX and generic tools write
// them, one behaviour each, for chrome_device_tracks_test.cc. The same text
// is checked in as testdata/chrome/<name>.json (regenerated with
// TRACELINT_REGENERATE_TESTDATA=1), where the CLI tests and the mutation
// replay read it. Times are integer microseconds unless said otherwise.

#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"

namespace tracelint::testing {

// Joins events into {"traceEvents": [...]} (with `head` keys before it),
// one event a line; the metadata events go first or, as Kineto puts them,
// last.
inline std::string ChromeTrace(const std::vector<std::string>& metadata,
                               const std::vector<std::string>& events,
                               bool metadata_last = false, const std::string& head = "") {
  std::vector<std::string> all = metadata_last ? events : metadata;
  const std::vector<std::string>& rest = metadata_last ? metadata : events;
  all.insert(all.end(), rest.begin(), rest.end());
  std::string out = "{" + head + "\"traceEvents\": [\n";
  for (size_t i = 0; i < all.size(); ++i) {
    out += "  " + all[i] + (i + 1 < all.size() ? ",\n" : "\n");
  }
  return out + "]}\n";
}

inline std::string ProcessName(int pid, const std::string& name) {
  return fmt::format(R"({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "{}"}}}})",
                     pid, name);
}

inline std::string ThreadName(int pid, int tid, const std::string& name) {
  return fmt::format(
      R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
      pid, tid, name);
}

// A TF1 timeline op: name = op type, args = node name and op.
inline std::string TfOp(int pid, int ts_us, int dur_us, const std::string& op,
                        const std::string& node) {
  return fmt::format(
      R"({{"ph": "X", "cat": "Op", "name": "{}", "pid": {}, "tid": 0, "ts": {}, "dur": {}, )"
      R"("args": {{"name": "{}", "op": "{}"}}}})",
      op, pid, ts_us, dur_us, node, op);
}

// TF1 timeline.Timeline(run_metadata).generate_chrome_trace_format() of one
// session.run on GPU 0. The device tracer puts every kernel on its stream
// and again on /stream:all, every copy on its stream and again on /memcpy
// (the copy at 1185 is named after the op that issued it). Per-stream
// work: kernels 110 us, copies 65 us (HtoD 40, DtoH 20, 5 unnamed), none
// overlapping: busy 175 us of the 1000-1300 window.
inline std::string Tf1TimelineTrace(bool metadata_last = false) {
  const std::string gpu = "/device:GPU:0";
  const std::string job = "/job:localhost/replica:0/task:0/device:";
  std::vector<std::string> meta = {
      ProcessName(0, "Allocators"),
      ProcessName(1, gpu + "/stream:13 Compute"),
      ProcessName(2, gpu + "/stream:13 Tensors"),
      ProcessName(3, gpu + "/stream:14 Compute"),
      ProcessName(4, gpu + "/stream:14 Tensors"),
      ProcessName(5, gpu + "/memcpy Compute"),
      ProcessName(6, gpu + "/memcpy Tensors"),
      ProcessName(7, gpu + "/stream:all Compute"),
      ProcessName(8, gpu + "/stream:all Tensors"),
      ProcessName(9, job + "CPU:0 Compute"),
      ProcessName(10, job + "CPU:0 Tensors"),
      ProcessName(11, job + "GPU:0 Compute"),
      ProcessName(12, job + "GPU:0 Tensors"),
  };
  std::vector<std::string> events = {
      TfOp(9, 1000, 4, "NoOp", "_SOURCE"),
      TfOp(11, 1005, 3, "MatMul", "MatMul"),
      TfOp(11, 1009, 2, "Add", "add"),
      TfOp(3, 1010, 40, "MEMCPYHtoD", "edge_1_x"),
      TfOp(5, 1010, 40, "MEMCPYHtoD", "edge_1_x"),
      TfOp(1, 1060, 100, "MatMul", "MatMul"),
      TfOp(7, 1060, 100, "MatMul", "MatMul"),
      TfOp(1, 1170, 10, "Add", "add"),
      TfOp(7, 1170, 10, "Add", "add"),
      TfOp(1, 1185, 5, "MatMul", "MatMul"),
      TfOp(5, 1185, 5, "MatMul", "MatMul"),
      TfOp(3, 1200, 20, "MEMCPYDtoH", "edge_2_add"),
      TfOp(5, 1200, 20, "MEMCPYDtoH", "edge_2_add"),
      TfOp(9, 1250, 50, "Mean", "loss/Mean"),
      R"({"ph": "s", "cat": "DataFlow", "name": "edge_1_x", "pid": 9, "tid": 0, "ts": 1002, "id": 1})",
      R"({"ph": "t", "cat": "DataFlow", "name": "edge_1_x", "pid": 11, "tid": 0, "ts": 1005, "id": 1})",
  };
  return ChromeTrace(meta, events, metadata_last);
}

// The same shape with TF's device names before "/device:GPU:0" (about TF
// 1.0-1.2): "/gpu:0/stream:12", "/job:.../cpu:0". Kernels 300 us on stream
// 12, one DtoH copy of 50 us on stream 14 (repeated on /memcpy).
inline std::string Tf1OldGpuNamesTrace() {
  const std::string job = "/job:localhost/replica:0/task:0/";
  std::vector<std::string> meta = {
      ProcessName(0, "Allocators"),           ProcessName(1, job + "cpu:0 Compute"),
      ProcessName(3, job + "gpu:0 Compute"),  ProcessName(5, "/gpu:0/stream:all Compute"),
      ProcessName(7, "/gpu:0/stream:12 Compute"), ProcessName(9, "/gpu:0/memcpy Compute"),
      ProcessName(13, "/gpu:0/stream:14 Compute"),
  };
  std::vector<std::string> events = {
      TfOp(1, 1000, 10, "NoOp", "_SOURCE"),
      TfOp(3, 1010, 5, "MatMul", "MatMul"),
      TfOp(7, 1020, 300, "MatMul", "MatMul"),
      TfOp(5, 1020, 300, "MatMul", "MatMul"),
      TfOp(13, 1330, 50, "MEMCPYDtoH", "edge_3_MatMul"),
      TfOp(9, 1330, 50, "MEMCPYDtoH", "edge_3_MatMul"),
  };
  return ChromeTrace(meta, events);
}

// A TF1 timeline of a CPU-only session.run: no device tracks at all.
inline std::string Tf1CpuOnlyTrace() {
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  std::vector<std::string> meta = {ProcessName(0, "Allocators"),
                                   ProcessName(1, cpu + " Compute"),
                                   ProcessName(2, cpu + " Tensors")};
  std::vector<std::string> events = {
      TfOp(1, 1000, 4, "NoOp", "_SOURCE"),
      TfOp(1, 1005, 200, "MatMul", "MatMul"),
      TfOp(1, 1210, 30, "Add", "add"),
  };
  return ChromeTrace(meta, events);
}

// A TF1 timeline of one session.run on GPU 0, for judging it: `ops` GPU
// ops in a row, each dispatched on the executor for `host_us` and launching
// one kernel of `kernel_us` 5 us before its host side ends (so the GPU idles
// host_us - kernel_us + 2 between kernels); an IteratorGetNext of `input_us`
// on the CPU device first (0: none). Every executor runs `_SOURCE` once, or
// `runs` times for a file that concatenates runs.
inline std::string Tf1SessionRunTrace(int ops, int host_us, int kernel_us, int input_us = 0,
                                      int runs = 1) {
  const std::string gpu = "/device:GPU:0";
  const std::string job = "/job:localhost/replica:0/task:0/device:";
  std::vector<std::string> meta = {
      ProcessName(0, "Allocators"),        ProcessName(1, gpu + "/stream:13 Compute"),
      ProcessName(2, gpu + "/stream:all Compute"), ProcessName(3, job + "CPU:0 Compute"),
      ProcessName(4, job + "GPU:0 Compute"),
  };
  std::vector<std::string> events;
  int t = 1000;
  for (int run = 0; run < runs; ++run) {
    events.push_back(TfOp(4, t, 3, "NoOp", "_SOURCE"));
    events.push_back(TfOp(3, t + 1, 2, "NoOp", "_SOURCE"));
    t += 5;
    if (input_us > 0) {
      events.push_back(TfOp(3, t, input_us, "IteratorGetNext", "IteratorGetNext"));
      t += input_us + 2;
    }
    for (int i = 0; i < ops; ++i) {
      const std::string node = fmt::format("dense_{}/MatMul", i);
      events.push_back(TfOp(4, t, host_us, "MatMul", node));
      events.push_back(TfOp(1, t + host_us - 5, kernel_us, "MatMul", node));
      events.push_back(TfOp(2, t + host_us - 5, kernel_us, "MatMul", node));
      t += host_us + 2;
    }
    t += 100;
  }
  return ChromeTrace(meta, events);
}

inline std::string XprofOp(int pid, int tid, const std::string& ts_us, const std::string& dur_us,
                           const std::string& name) {
  return fmt::format(R"({{"ph": "X", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "name": "{}"}})",
                     pid, tid, ts_us, dur_us, name);
}

// xprof's trace viewer JSON of a JAX step on GPU 0, as JAX writes it to
// perfetto_trace.json.gz (trace.json.gz without its "metadata" key):
// stream 13 runs two kernels (200 us), stream 14 is copy-only (one 40 us
// HtoD copy named only "MemcpyH2D"); "XLA Ops" repeats the kernels, "XLA
// Modules" and "Steps" group them. Busy 240 us.
inline std::string XprofGpuTrace(const std::string& device_process = "/device:GPU:0",
                                 const std::string& module = "jit_train_step(123)") {
  std::vector<std::string> meta = {
      ProcessName(1, "/host:CPU"),
      ThreadName(1, 100, "py_xla_execute/100"),
      ProcessName(2, device_process),
      ThreadName(2, 13, "Stream #13(Kernel)"),
      ThreadName(2, 14, "Stream #14(MemcpyH2D)"),
      ThreadName(2, 1000, "XLA Ops"),
      ThreadName(2, 1001, "XLA Modules"),
      ThreadName(2, 1002, "Steps"),
  };
  std::vector<std::string> events = {
      XprofOp(1, 100, "1000.5", "400", "PjitFunction(train_step)"),
      XprofOp(2, 14, "1050", "40", "MemcpyH2D"),
      XprofOp(2, 13, "1100", "100", "loop_fusion"),
      XprofOp(2, 13, "1210", "100", "gemm_fusion"),
      XprofOp(2, 1000, "1100", "100", "fusion.1"),
      XprofOp(2, 1000, "1210", "100", "dot.2"),
      XprofOp(2, 1001, "1100", "210", module),
      XprofOp(2, 1002, "1050", "260", "0"),
  };
  return ChromeTrace(meta, events, /*metadata_last=*/false, R"("displayTimeUnit": "ns", )");
}

// A tool's own Chrome trace of host code (a compiler's self-profile): no
// Kineto names, no device.
inline std::string GenericCpuTrace() {
  return ChromeTrace(
      {}, {
              R"({"pid": 6484, "tid": 12440, "ts": 176, "dur": 2678, "ph": "X", "name": "Parser Main", "args": {"ms": 2.678}})",
              R"({"pid": 6484, "tid": 12440, "ts": 177, "dur": 755, "ph": "X", "name": "openFile", "args": {"ms": 0.755}})",
              R"({"pid": 6484, "tid": 12440, "ts": 1051, "dur": 309, "ph": "X", "name": "Lexer - ParseFile", "args": {"ms": 0.309}})",
          });
}

// Host events whose tid is a string (a Rust profiler writes "ThreadId(1)").
inline std::string StringTidTrace() {
  return ChromeTrace(
      {}, {
              R"j({"name": "forward_pass", "cat": "Cpu", "ph": "X", "ts": 0.0, "dur": 5000.0, "pid": 27172, "tid": "ThreadId(1)", "args": {}})j",
              R"j({"name": "matmul", "cat": "Cpu", "ph": "X", "ts": 100.0, "dur": 600.0, "pid": 27172, "tid": "ThreadId(1)", "args": {}})j",
              R"j({"name": "loader", "cat": "Cpu", "ph": "X", "ts": 50.0, "dur": 300.0, "pid": 27172, "tid": "ThreadId(2)", "args": {}})j",
          });
}

// Begin/end events without a pid (a bpftrace-to-Chrome converter).
inline std::string NoPidTrace() {
  return ChromeTrace(
      {}, {
              R"({"name": "bpftrace", "ph": "B", "tid": 7, "ts": 1000.25})",
              R"({"name": "tee", "ph": "B", "tid": 6, "ts": 1010.5})",
              R"({"name": "bpftrace", "ph": "E", "tid": 7, "ts": 1030.75, "args": {"comm": "bpftrace"}})",
              R"({"name": "tee", "ph": "E", "tid": 6, "ts": 1040.0, "args": {"comm": "tee"}})",
          });
}

// testdata/chrome/<name>.json and what makes each.
inline std::vector<std::pair<std::string, std::string>> ChromeTestdata() {
  return {
      {"tf1_timeline", Tf1TimelineTrace()},
      {"tf1_old_gpu_names", Tf1OldGpuNamesTrace()},
      {"tf1_cpu_only", Tf1CpuOnlyTrace()},
      // Judged (tests/tf1_judgement_test.cc): the executor's dispatch above
      // the launch gap (other host work), below it (launch overhead), the
      // GPU busy, the input pipeline, and two runs in one file.
      {"tf1_dispatch_bound", Tf1SessionRunTrace(40, 80, 10)},
      {"tf1_launch_bound", Tf1SessionRunTrace(40, 45, 10)},
      {"tf1_gpu_bound", Tf1SessionRunTrace(40, 20, 200)},
      {"tf1_input_bound", Tf1SessionRunTrace(40, 20, 30, 3000)},
      {"tf1_two_runs", Tf1SessionRunTrace(20, 80, 10, 0, 2)},
      {"xprof_gpu", XprofGpuTrace()},
      {"generic_cpu", GenericCpuTrace()},
      {"string_tid", StringTidTrace()},
      {"no_pid", NoPidTrace()},
  };
}

}  // namespace tracelint::testing

#endif  // TRACELINT_PARSERS_KINETO_CHROME_TEST_TRACES_H_
