// Reading Ultralytics' loss fixtures (../shared/fixtures/ultralytics{,84}/loss-*.safetensors; their README.md
// describes the keys), shared by the loss tests that run on them (test_parity_loss, test_graph_ready_loss).
#pragma once
#include <ATen/ATen.h>
#include <QtGlobal>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "io/safetensors.h"
#include "loss/detection_loss.h"

namespace loss_fixtures {

/// <prefix>*.safetensors (loss-*, or musgd-*) of the shared 8.3 folder, of the 8.4 folder when `with84`, and
/// of $YWB_LOSS_FIXTURES; each file once, sorted within its folder.
inline std::vector<std::string> fixtureFiles(bool with84, const std::string& prefix = "loss-") {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs{std::string(YW_SHARED_DIR) + "/fixtures/ultralytics"};
  if (with84) dirs.push_back(std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84");
  if (const char* extra = std::getenv("YWB_LOSS_FIXTURES"); extra && *extra) dirs.emplace_back(extra);
  std::vector<std::string> files;
  for (const auto& d : dirs) {
    std::vector<std::string> here;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".safetensors")
        here.push_back(fs::weakly_canonical(e.path()).string());
    }
    if (ec) qWarning("cannot list %s: %s", d.c_str(), ec.message().c_str());
    std::sort(here.begin(), here.end());
    for (const auto& f : here)
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  return files;
}

/// A fixture of Ultralytics 8.4 (metadata `source`): its loss has the small-box rule, its heads are stored
/// per branch (expected.<branch>.boxes/scores) and its model has 8.4's modules.
inline bool isUltralytics84(const ywb::SafetensorsFile& f) {
  const auto it = f.metadata.find("source");
  return it != f.metadata.end() && it->second.find("ultralytics 8.4") != std::string::npos;
}

/// An 8.4 fixture's flattened branch outputs (boxes [N,4*reg_max,A], scores [N,nc,A], A = P3 then P4, P5)
/// -> the head's per-level maps [N, 4*reg_max+nc, S/s, S/s], the form the loss takes.
inline std::vector<at::Tensor> branchMaps(const ywb::SafetensorsFile& f, const std::string& branch,
                                          int64_t imgsz, const std::vector<int64_t>& strides) {
  const at::Tensor& boxes = f.at("expected." + branch + ".boxes");
  const at::Tensor& scores = f.at("expected." + branch + ".scores");
  std::vector<at::Tensor> maps;
  int64_t start = 0;
  for (const int64_t s : strides) {
    const int64_t g = imgsz / s;
    maps.push_back(at::cat({boxes.narrow(2, start, g * g), scores.narrow(2, start, g * g)}, 1)
                       .reshape({boxes.size(0), -1, g, g}));
    start += g * g;
  }
  return maps;
}

/// The box/cls/dfl gains of the fixture's `hyp` metadata (Ultralytics' defaults where absent).
inline ywb::loss::LossGains fixtureGains(const std::map<std::string, std::string>& meta) {
  ywb::loss::LossGains gains;
  if (meta.count("hyp")) {
    const auto hyp = nlohmann::json::parse(meta.at("hyp"));
    gains.box = hyp.value("box", gains.box);
    gains.cls = hyp.value("cls", gains.cls);
    gains.dfl = hyp.value("dfl", gains.dfl);
  }
  return gains;
}

}  // namespace loss_fixtures
