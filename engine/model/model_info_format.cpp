// Text and JSON rendering of ModelInfo (torch-free).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "ywb/model_info.h"

namespace ywb {
namespace {

std::string fromText(const std::vector<int>& from) {
  if (from.size() == 1) return std::to_string(from[0]);
  std::string s = "[";
  for (size_t i = 0; i < from.size(); ++i) s += (i ? ", " : "") + std::to_string(from[i]);
  return s + "]";
}

std::string gf(double g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", g);
  return buf;
}

}  // namespace

std::string withCommas(int64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > (v < 0 ? 1 : 0); i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::string modelInfoText(const ModelInfo& info) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%5s %16s %3s %11s  %-12s %s\n", "", "from", "n", "params", "module",
                "arguments");
  os << line;
  for (const auto& r : info.layers) {
    std::snprintf(line, sizeof line, "%5d %16s %3d %11s  %-12s %s\n", r.index,
                  (r.from_text.empty() ? fromText(r.from) : r.from_text).c_str(), r.repeats,
                  withCommas(r.params).c_str(), r.module.c_str(), r.args.c_str());
    os << line;
  }
  os << info.name << (info.scale.empty() ? "" : " (scale " + info.scale + ")") << " from " << info.source
     << ": " << info.layers.size() << " layers, " << withCommas(info.parameters) << " parameters, "
     << withCommas(info.gradients) << " gradients, " << gf(info.gflops_unfused) << " GFLOPs unfused; fused "
     << withCommas(info.fused_parameters) << " parameters, " << gf(info.gflops_fused) << " GFLOPs at "
     << info.imgsz << "x" << info.imgsz << " (nc=" << info.nc << ")\n";
  os << "head: one-to-many branches (cv2/cv3"
     << (info.reg_max > 1 ? ", DFL " + std::to_string(info.reg_max) : std::string(", no DFL (reg_max 1)"))
     << ") " << withCommas(info.head_one2many_parameters) << " parameters";
  if (info.end2end)
    os << "; one-to-one branches (one2one_cv2/one2one_cv3) " << withCommas(info.head_one2one_parameters)
       << " parameters; end-to-end: inference takes the one-to-one branches without NMS";
  else
    os << "; inference with NMS";
  os << "; Ultralytics " << info.ultralytics_modules << " modules\n";
  if (info.backbone_layers > 0)
    os << "backbone: layers 0-" << info.backbone_layers - 1 << " (freeze=" << info.backbone_layers
       << " trains only the neck and head)\n";
  return os.str();
}

std::string modelInfoJson(const ModelInfo& info) {
  nlohmann::json j;
  j["name"] = info.name;
  j["source"] = info.source;
  j["scale"] = info.scale;
  j["family"] = info.family;
  j["nc"] = info.nc;
  j["imgsz"] = info.imgsz;
  j["strides"] = info.strides;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : info.layers) {
    rows.push_back({{"index", r.index},
                    {"from", r.from},
                    {"from_text", r.from_text},
                    {"repeats", r.repeats},
                    {"params", r.params},
                    {"module", r.module},
                    {"args", r.args}});
  }
  j["layers"] = rows;
  j["head"] = {{"end2end", info.end2end},
               {"reg_max", info.reg_max},
               {"one2many_parameters", info.head_one2many_parameters},
               {"one2one_parameters", info.head_one2one_parameters}};
  j["ultralytics_modules"] = info.ultralytics_modules;
  j["backbone_layers"] = info.backbone_layers;
  j["totals"] = {{"layers", info.layers.size()},          {"modules", info.modules},
                 {"parameters", info.parameters},         {"gradients", info.gradients},
                 {"gflops", info.gflops_fused},           {"gflops_fused", true},
                 {"gflops_unfused", info.gflops_unfused}, {"fused_parameters", info.fused_parameters}};
  return j.dump();
}

}  // namespace ywb
