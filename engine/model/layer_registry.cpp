// The table of YAML module names and their builders. Each builder lives in the file of its module; a new
// module family adds its files and its lines here (a static library would drop self-registering objects).
#include <utility>

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

std::string layerModuleNames() {
  std::string s;
  for (const auto& [name, builder] : table()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

}  // namespace ywb::model
