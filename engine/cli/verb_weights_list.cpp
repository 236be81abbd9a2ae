#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "ywb/pretrained.h"

namespace ywb::cli {
namespace {

int runWeightsList(const Args& a) {
  a.requireKnown({});
  const std::string dir = weightsCacheDir(), base = weightsBaseUrl();
  if (a.json) {
    nlohmann::ordered_json j;
    j["cache_dir"] = dir;
    j["base_url"] = base;
    j["weights"] = nlohmann::ordered_json::array();
    for (const auto& w : officialWeights()) {
      j["weights"].push_back({{"name", w.file},
                              {"family", w.family},
                              {"params_m", w.params_m},
                              {"size_bytes", w.size_bytes},
                              {"size_exact", w.size_exact},
                              {"downloaded", isWeightsCached(w)},
                              {"path", cachedWeightsPath(w)}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%-12s %8s %10s  %s\n", "name", "params", "size", "status");
  for (const auto& w : officialWeights()) {
    std::printf("%-12s %7.1fM %s%7.1f MB  %s\n", w.file.c_str(), w.params_m, w.size_exact ? "  " : " ~",
                double(w.size_bytes) / 1e6, isWeightsCached(w) ? "downloaded" : "will download");
  }
  std::printf("\ncache folder: %s (%s)\naddress:      %s/<name> (%s)\n", dir.c_str(), kWeightsDirEnv,
              base.c_str(), kWeightsUrlEnv);
  std::printf("license:      AGPL-3.0, stated by Ultralytics (https://www.ultralytics.com/license)\n");
  return 0;
}

int runWeightsFetch(const Args& a) {
  a.requireKnown({"weights"});
  const std::string name = a.str("weights");
  if (name.empty() || !findOfficialWeights(name))
    return reportError(a, "weights=NAME is required: one of " + officialWeightsList());
  const std::string path = resolveWeightsArg(name, a.json);
  if (a.json)
    std::cout << nlohmann::json{{"name", name}, {"path", path}}.dump() << "\n";
  else
    std::cout << path << "\n";
  return 0;
}

const RegisterVerb reg_list{
    {"weights list", "list the official pretrained weights, their size and whether they are downloaded",
     "[--json]\n\n"
     "The official YOLOv8, YOLO11 and YOLO26 detection weights (n, s, m, l, x) under Ultralytics' file\n"
     "names. Any weights= / model= / pretrained= argument may name one: it is downloaded on first use\n"
     "into the cache folder ($YWB_WEIGHTS_DIR, else $XDG_CACHE_HOME/ywb/weights, else\n"
     "~/.cache/ywb/weights) from $YWB_WEIGHTS_URL/<name> (default: Ultralytics' release assets), checked\n"
     "(a readable checkpoint, every CRC, the architecture its name promises) and then used from there\n"
     "with no network access. Sizes marked ~ are estimates. The weights are Ultralytics' (AGPL-3.0).",
     runWeightsList}};

const RegisterVerb reg_fetch{
    {"weights fetch", "download one official weights file into the cache (for offline use later)",
     "weights=NAME [--json]\n\n"
     "Downloads NAME (see `ywb weights list`) into the weights cache unless it is there, and prints its\n"
     "path. A broken download resumes when run again. YWB_WEIGHTS_TIMEOUT=SECONDS sets how long a\n"
     "stalled transfer is waited for (default 60).",
     runWeightsFetch}};

}  // namespace
}  // namespace ywb::cli
