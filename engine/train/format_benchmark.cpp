// benchmarkFormats(): ywb/format_benchmark.h.
#include "ywb/format_benchmark.h"

#include <filesystem>

#include "core/error.h"
#include "ywb/export.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// One format to export: ExportOptions' switches, and how the row names it.
struct Format {
  std::string name, format;
  bool half = false, end2end = true;
};

FormatBenchmarkRow validated(const FormatBenchmarkOptions& o, const std::string& format,
                             const std::string& file, ValReport* report = nullptr) {
  FormatBenchmarkRow row;
  row.format = format;
  row.file = file;
  ValOptions v;
  v.data = o.data;
  v.weights = file;
  v.split = o.split;
  v.imgsz = o.imgsz;
  v.batch = o.batch;
  v.workers = o.workers;
  v.device = o.device;
  const ValReport r = validateWeights(v);
  row.ok = true;
  row.runtime = r.runtime;
  row.size_mb = double(fs::file_size(file)) / 1e6;
  row.map = r.metrics.map;
  row.map50 = r.metrics.map50;
  row.ms_inference = r.ms_inference;
  row.ms_total = r.ms_preprocess + r.ms_inference + r.ms_nms;
  row.nms_free = r.nms_free;
  if (report) *report = r;
  return row;
}

}  // namespace

FormatBenchmarkReport benchmarkFormats(const FormatBenchmarkOptions& o) {
  if (o.weights.empty() || o.data.empty()) fail("benchmark needs weights=FILE and data=DATA.yaml");
  if (o.out_dir.empty() || !fs::is_directory(o.out_dir))
    fail("benchmark: no output folder '", o.out_dir, "'");
  FormatBenchmarkReport rep;
  rep.weights = o.weights;
  rep.data = o.data;
  const auto add = [&](FormatBenchmarkRow row) {
    rep.rows.push_back(std::move(row));
    if (o.on_row) o.on_row(rep.rows.back());
  };
  // The weights as given: the reference row. Its failure is the caller's input error, so it throws. It runs
  // twice and the second run is kept: the first pays this process's one-time set-up (LibTorch's thread
  // pools, allocator and kernel caches: 80 against 62 ms per image at 640 px, docs/PERFORMANCE.md), which
  // every later row would otherwise be spared.
  ValReport first;
  validated(o, "weights", o.weights);
  add(validated(o, "weights", o.weights, &first));
  rep.imgsz = first.imgsz;
  rep.images = int(first.metrics.images);

  std::vector<Format> formats{
      {"safetensors", "safetensors"}, {"onnx", "onnx"}, {"onnx fp16 weights", "onnx", true}};
  if (first.end2end_model) {
    formats[1].name = "onnx end-to-end";
    formats.push_back({"onnx one-to-many + NMS", "onnx", false, false});
  }
  // A traced model has a fixed size and batch: validated on square imgsz batches (Ultralytics' rule for
  // fixed-size exports), which its row's name says, as its numbers differ from rectangular batches' by that.
  formats.push_back(
      {first.end2end_model ? "torchscript end-to-end, squares" : "torchscript, squares", "torchscript"});
  for (const Format& f : formats) {
    FormatBenchmarkRow row;
    row.format = f.name;
    try {
      ExportOptions e;
      e.weights = o.weights;
      e.formats = {f.format};
      e.out_dir = o.out_dir;
      e.name = fs::path(o.weights).stem().string() + (f.half ? "-fp16" : "") + (f.end2end ? "" : "-one2many");
      e.imgsz = o.imgsz;
      e.half = f.half;
      e.end2end = f.end2end;
      e.dynamic = f.format == "onnx";  // the weights' own rectangular batches: rows differ by format alone
      e.batch = f.format == "torchscript" ? o.batch : 1;
      e.verify = false;  // the validation below is the check
      const ExportReport x = exportWeights(e);
      row = validated(o, f.name, x.files.at(0).path);
    } catch (const Error& err) {
      row.ok = false;
      row.error = err.what();
    }
    add(std::move(row));
  }
  return rep;
}

}  // namespace ywb
