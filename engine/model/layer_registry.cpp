// The table of YAML module names and their builders. Each builder lives in the file of its module; a new
// module family adds its files and its lines here (a static library would drop self-registering objects).
#include <utility>

#include "model/detection_model.h"
#include "model/layer_builder.h"

namespace ywb::model {

BuiltLayer buildConvLayer(LayerContext& ctx);
BuiltLayer buildDWConvLayer(LayerContext& ctx);
BuiltLayer buildC2fLayer(LayerContext& ctx);
BuiltLayer buildC3Layer(LayerContext& ctx);
BuiltLayer buildC3k2Layer(LayerContext& ctx);
BuiltLayer buildSPPFLayer(LayerContext& ctx);
BuiltLayer buildC2PSALayer(LayerContext& ctx);
BuiltLayer buildUpsampleLayer(LayerContext& ctx);
BuiltLayer buildConcatLayer(LayerContext& ctx);
BuiltLayer buildDetectLayer(LayerContext& ctx);

namespace {

const std::vector<std::pair<std::string, LayerBuilder>>& table() {
  static const std::vector<std::pair<std::string, LayerBuilder>> t = {
      {"Conv", buildConvLayer},         {"DWConv", buildDWConvLayer},
      {"C2f", buildC2fLayer},           {"C3", buildC3Layer},
      {"C3k2", buildC3k2Layer},         {"SPPF", buildSPPFLayer},
      {"C2PSA", buildC2PSALayer},       {"nn.Upsample", buildUpsampleLayer},
      {"Upsample", buildUpsampleLayer}, {"Concat", buildConcatLayer},
      {"Detect", buildDetectLayer}};
  return t;
}

}  // namespace

LayerBuilder findLayerBuilder(const std::string& module) {
  for (const auto& [name, builder] : table())
    if (name == module) return builder;
  return nullptr;
}

const std::vector<std::string>& rebuildableModuleClasses() {
  // Ultralytics' classes behind the YAML names above and their parts, plus the torch.nn modules they hold.
  static const std::vector<std::string> names = {"DetectionModel", "Conv",      "DWConv",      "Concat",
                                                 "Bottleneck",     "C2f",       "C3",          "C3k",
                                                 "C3k2",           "SPPF",      "C2PSA",       "PSABlock",
                                                 "Attention",      "Detect",    "DFL",         "Sequential",
                                                 "ModuleList",     "Conv2d",    "BatchNorm2d", "SiLU",
                                                 "Identity",       "MaxPool2d", "Upsample"};
  return names;
}

std::string layerModuleNames() {
  std::string s;
  for (const auto& [name, builder] : table()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

}  // namespace ywb::model
