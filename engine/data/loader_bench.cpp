// `ywb bench loader`: times the DataLoader over a split and reports images/s and per-stage costs.
#include "ywb/loader_bench.h"

#include <sys/resource.h>

#include <chrono>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/threads.h"
#include "data/dataset_scanner.h"
#include "data/loader.h"

namespace ywb {
namespace {

double processCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

}  // namespace

LoaderBenchReport runLoaderBench(const LoaderBenchOptions& o) {
  return guarded("bench loader", [&] {
    if (o.epochs < 1) fail("epochs=", o.epochs, " must be at least 1");
    LoaderBenchReport r;
    r.torch_threads = configureTorchThreads(0);
    r.workers = o.workers;
    const DataConfig cfg = loadDataConfig(o.data);
    auto split = std::make_shared<ScannedSplit>(scanSplit(cfg, o.split));
    LoaderOptions lo;
    lo.imgsz = o.imgsz;
    lo.batch = o.batch;
    lo.workers = o.workers;
    lo.augment = o.augment;
    lo.shuffle = true;
    lo.seed = o.seed;
    lo.cache_ram = o.cache_ram;
    lo.decoded_buffer = o.decoded_buffer;
    lo.hyp = o.hyp;
    DataLoader loader(split, lo);
    r.cache_fill_s = loader.cacheFillSeconds();
    r.cache_note = loader.cacheNote();
    Batch b;
    loader.startEpoch(0);  // warm-up: page cache, allocator, thread start
    while (loader.next(b)) {
    }
    const LoaderStats s0 = loader.stats();
    const double cpu0 = processCpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    for (int e = 1; e <= o.epochs; ++e) {
      loader.startEpoch(e);
      while (loader.next(b)) {
        r.images += int(b.images.size(0));
        ++r.batches;
      }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const LoaderStats s1 = loader.stats();
    r.cpu_ms = 1000 * (processCpuSeconds() - cpu0) / std::max(1, r.images);
    r.projected_images_per_s =
        std::min(std::max(1, o.workers), availableCpus()) * 1000 / std::max(1e-9, r.cpu_ms);
    const double n = std::max<double>(1, double(s1.samples - s0.samples));
    r.images_per_s = r.images / std::max(1e-9, r.seconds);
    r.decode_ms = 1000 * (s1.decode_s - s0.decode_s) / n;
    r.augment_ms = 1000 * (s1.augment_s - s0.augment_s) / n;
    r.collate_ms = 1000 * (s1.collate_s - s0.collate_s) / n;
    r.wait_ms = 1000 * (s1.wait_s - s0.wait_s) / std::max(1, r.batches);
    const int64_t hits = s1.buffer_hits - s0.buffer_hits,
                  lookups = hits + s1.buffer_misses - s0.buffer_misses;
    if (lookups > 0) r.buffer_hit_rate = double(hits) / double(lookups);
    return r;
  });
}

std::string loaderBenchText(const LoaderBenchOptions& o, const LoaderBenchReport& r) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  os << "Loader " << o.data << " [" << o.split << "] imgsz=" << o.imgsz << " batch=" << o.batch
     << " workers=" << r.workers << " augment=" << (o.augment ? "on" : "off") << " mosaic=" << o.hyp.mosaic
     << " cache=" << (o.cache_ram && r.cache_note.empty() ? "ram" : "none")
     << " buffer=" << (o.decoded_buffer ? "true" : "false") << "\n";
  if (!r.cache_note.empty()) os << "  note: " << r.cache_note << "\n";
  if (o.cache_ram && r.cache_note.empty()) os << "  RAM cache filled in " << r.cache_fill_s << " s\n";
  os << "  " << r.images << " images in " << r.batches << " batches, " << std::setprecision(2) << r.seconds
     << " s: " << std::setprecision(1) << r.images_per_s << " images/s\n";
  os << std::setprecision(2) << "  per image (thread CPU time): decode " << r.decode_ms << " ms, augment "
     << r.augment_ms << " ms, collate " << r.collate_ms << " ms\n";
  os << "  consumer wait per batch: " << r.wait_ms << " ms\n";
  if (r.buffer_hit_rate >= 0) {
    os << std::setprecision(1) << "  decoded-image buffer: " << 100 * r.buffer_hit_rate
       << "% of image lookups served from memory\n";
  }
  os << "  process CPU per image: " << r.cpu_ms << " ms -> " << std::setprecision(1)
     << r.projected_images_per_s << " images/s on " << std::min(std::max(1, o.workers), availableCpus())
     << " idle cores (CPU-bound projection; differs from the measured rate when the cores are shared)\n";
  return os.str();
}

std::string loaderBenchJson(const LoaderBenchOptions& o, const LoaderBenchReport& r) {
  nlohmann::ordered_json j;
  j["data"] = o.data;
  j["split"] = o.split;
  j["imgsz"] = o.imgsz;
  j["batch"] = o.batch;
  j["workers"] = r.workers;
  j["augment"] = o.augment;
  j["mosaic"] = o.hyp.mosaic;
  j["cache_ram"] = o.cache_ram && r.cache_note.empty();
  j["cache_note"] = r.cache_note;
  j["images"] = r.images;
  j["batches"] = r.batches;
  j["seconds"] = r.seconds;
  j["images_per_s"] = r.images_per_s;
  j["decode_ms"] = r.decode_ms;
  j["augment_ms"] = r.augment_ms;
  j["collate_ms"] = r.collate_ms;
  j["wait_ms_per_batch"] = r.wait_ms;
  j["cpu_ms"] = r.cpu_ms;
  j["buffer_hit_rate"] = r.buffer_hit_rate;
  j["projected_images_per_s"] = r.projected_images_per_s;
  j["cache_fill_s"] = r.cache_fill_s;
  j["torch_threads"] = r.torch_threads;
  return j.dump(2);
}

}  // namespace ywb
