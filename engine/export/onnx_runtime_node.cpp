#include "export/onnx_runtime_node.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/remove_tree.h"

extern char** environ;

namespace fs = std::filesystem;

namespace ywb::onnx_export {
namespace {

// The runner: reads the job file, runs every input through one InferenceSession (CPU execution provider),
// writes each output as raw float32 and the shapes and versions as result.json. Errors go to stderr with a
// non-zero exit.
constexpr const char* kRunnerScript = R"JS('use strict';
const fs = require('fs');
const path = require('path');
const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ort = require(path.join(job.module_dir, 'node_modules', 'onnxruntime-node'));
(async () => {
  const session = await ort.InferenceSession.create(job.model, { executionProviders: ['cpu'] });
  const result = { ort: ort.env.versions.node || ort.env.versions.common, node: process.version, outputs: [] };
  for (let i = 0; i < job.inputs.length; ++i) {
    const input = job.inputs[i];
    const bytes = fs.readFileSync(input.file);
    const data = new Float32Array(new Uint8Array(bytes).buffer);  // a copy: aligned for Float32Array
    const out = (await session.run({ [job.input_name]: new ort.Tensor('float32', data, input.dims) }))[job.output_name];
    if (!out) throw new Error(`the graph has no output '${job.output_name}'`);
    if (out.type !== 'float32') throw new Error(`output '${job.output_name}' is ${out.type}, not float32`);
    const file = path.join(job.dir, `output${i}.bin`);
    fs.writeFileSync(file, Buffer.from(out.data.buffer, out.data.byteOffset, out.data.byteLength));
    result.outputs.push({ file, dims: out.dims });
  }
  fs.writeFileSync(path.join(job.dir, 'result.json'), JSON.stringify(result));
})().catch((e) => {
  console.error(e && e.message ? e.message : String(e));
  process.exit(1);
});
)JS";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The executable `name` as execvp would find it on PATH ("" when absent); a name with a '/' is taken as is.
std::string findExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  std::string path = env("PATH");
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find(':', start), path.size());
    const std::string dir = path.substr(start, end - start);
    const std::string cand = (fs::path(dir.empty() ? "." : dir) / name).string();
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return "";
}

// Runs argv with stdout and stderr into `log`; returns the exit status (or fails when it cannot start).
int runProcess(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) fail("ONNX Runtime: cannot start ", argv[0], ": ", std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail("ONNX Runtime: waitpid failed: ", std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ywb-ort.XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      fail("ONNX Runtime: cannot create a temporary folder: ", std::strerror(errno));
    path = tmpl;
  }
  ~TempDir() { removeTree(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

}  // namespace

std::string onnxRuntimeDir() {
  if (const std::string dir = env("YWB_ONNXRUNTIME_DIR"); !dir.empty()) return dir;
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return (fs::path(xdg) / "ywb" / "onnxruntime-node").string();
  const std::string home = env("HOME");
  return (fs::path(home.empty() ? "." : home) / ".cache" / "ywb" / "onnxruntime-node").string();
}

OnnxRuntimeNode findOnnxRuntimeNode() {
  OnnxRuntimeNode rt;
  rt.module_dir = onnxRuntimeDir();
  const std::string node = env("YWB_NODE").empty() ? "node" : env("YWB_NODE");
  rt.node = findExecutable(node);
  std::error_code ec;
  const bool have_pkg =
      fs::is_regular_file(fs::path(rt.module_dir) / "node_modules" / "onnxruntime-node" / "package.json", ec);
  if (rt.node.empty())
    rt.missing = "Node.js ('" + node + "', $YWB_NODE) is not installed";
  else if (!have_pkg)
    rt.missing = "onnxruntime-node is not installed in " + rt.module_dir + " ($YWB_ONNXRUNTIME_DIR)";
  if (!rt.missing.empty()) rt.missing += ": run installer/install-onnxruntime.sh (npm, about 290 MB)";
  return rt;
}

OnnxRuntimeRun runWithOnnxRuntime(const OnnxRuntimeNode& rt, const std::string& onnx_path,
                                  const std::vector<at::Tensor>& inputs, const std::string& input_name,
                                  const std::string& output_name) {
  if (!rt.missing.empty()) fail("ONNX Runtime: ", rt.missing);
  TempDir tmp;
  nlohmann::json job;
  job["module_dir"] = fs::absolute(rt.module_dir).string();
  job["model"] = fs::absolute(onnx_path).string();
  job["dir"] = tmp.path;
  job["input_name"] = input_name;
  job["output_name"] = output_name;
  job["inputs"] = nlohmann::json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor x = inputs[i].to(at::kCPU, at::kFloat).contiguous();
    const std::string file = tmp.path + "/input" + std::to_string(i) + ".bin";
    writeFileAtomic(file,
                    std::string(static_cast<const char*>(x.data_ptr()), size_t(x.numel()) * sizeof(float)));
    job["inputs"].push_back(
        {{"file", file}, {"dims", std::vector<int64_t>(x.sizes().begin(), x.sizes().end())}});
  }
  writeFileAtomic(tmp.path + "/job.json", job.dump());
  writeFileAtomic(tmp.path + "/run.js", kRunnerScript);
  const std::string log = tmp.path + "/log.txt";
  const int rc = runProcess({rt.node, tmp.path + "/run.js", tmp.path + "/job.json"}, log);
  if (rc != 0) {
    std::string msg = fs::exists(log) ? readFile(log) : "";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    fail("ONNX Runtime (", rt.node, ", exit ", rc, "): ", msg.empty() ? "no message" : msg);
  }
  const auto result = nlohmann::json::parse(readFile(tmp.path + "/result.json"));
  OnnxRuntimeRun run;
  run.ort_version = result.value("ort", "");
  run.node_version = result.value("node", "");
  for (const auto& o : result.at("outputs")) {
    const auto dims = o.at("dims").get<std::vector<int64_t>>();
    const std::string bytes = readFile(o.at("file").get<std::string>());
    at::Tensor t = at::empty(dims, at::kFloat);
    if (size_t(t.numel()) * sizeof(float) != bytes.size())
      fail("ONNX Runtime: output of ", bytes.size(), " bytes for shape ", t.sizes());
    std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
    run.outputs.push_back(t);
  }
  return run;
}

std::string runtimeName(const OnnxRuntimeRun& run) {
  return "ONNX Runtime " + run.ort_version + " (onnxruntime-node on Node.js " + run.node_version + ")";
}

std::optional<OnnxRuntimeRun> runForVerification(ExportVerification& v, const std::string& onnx_path,
                                                 const std::vector<at::Tensor>& inputs,
                                                 const std::string& why_needed,
                                                 const std::string& reference) {
  const OnnxRuntimeNode rt = findOnnxRuntimeNode();
  if (!rt.missing.empty()) {
    v.note = why_needed + " and " + rt.missing;
    return std::nullopt;
  }
  try {
    OnnxRuntimeRun run = runWithOnnxRuntime(rt, onnx_path, inputs);
    v.runtime = runtimeName(run);
    v.method = v.runtime + " vs " + reference;
    return run;
  } catch (const Error& e) {
    v.method = "ONNX Runtime (onnxruntime-node) vs " + reference;
    v.note = e.what();
    return std::nullopt;
  }
}

std::string outputShapeMismatch(const at::Tensor& got, const at::Tensor& ref) {
  std::ostringstream s;
  s << "ONNX Runtime output " << got.sizes() << ", LibTorch " << ref.sizes();
  return s.str();
}

}  // namespace ywb::onnx_export
