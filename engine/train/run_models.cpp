#include "train/run_models.h"

#include "core/error.h"
#include "io/state_dict.h"
#include "model/channels_last.h"
#include "train/freeze_arg.h"
#include "train/train_session.h"
#include "ywb/model_info.h"
#include "ywb/pretrained.h"

namespace ywb {

RunModelSource runModelSource(TrainSession& s, const SafetensorsFile* resume) {
  const TrainArgs& a = s.args;
  RunModelSource src;
  src.yaml = a.model;
  // model=X.pt (or another weights file): its architecture with the data's classes, then its weights
  // transferred by name and shape (Ultralytics' fine-tuning); pretrained= transfers into model='s
  // architecture. An official name (model=yolo11n.pt) is the file in the weights cache, downloaded there
  // first when missing (ywb/pretrained.h); the run keeps recording the name.
  WeightsFetchOptions fetch;
  fetch.note = [&s](const std::string& line) { s.log(line); };
  src.model_file = resolveWeights(a.model, fetch);
  if (hasWeightsSuffix(src.model_file) && !isWeightsPath(src.model_file))
    fail("model=", a.model, ": no such file");
  if (isWeightsPath(src.model_file)) {
    src.from_weights = readWeightsWithModel(src.model_file);
    src.yaml = src.from_weights.yaml;
    src.modules = src.from_weights.modules;  // the checkpoint's module form where its YAML does not say
    src.start = std::move(src.from_weights.tensors);
    src.start_from = a.model;
  }
  // A resumed run rebuilds the model its checkpoint recorded: a checkpoint written before the module form was
  // recorded was trained with 8.3's modules (SPPF cv1 with SiLU), whatever models built from YAML follow now.
  if (resume && resume->metadata.count("model_yaml") && !resume->metadata.at("model_yaml").empty()) {
    src.yaml = resume->metadata.at("model_yaml");
    src.modules = "8.3";
  }
  if (!a.pretrained.empty() && !resume) {
    src.start = readModelTensors(resolveWeights(a.pretrained, fetch));
    src.start_from = a.pretrained;
  }
  return src;
}

std::string freezeModelLayers(model::DetectionModelImpl& m, const std::string& freeze, bool from_weights) {
  const std::vector<int> layers = frozenLayerList(freeze, m.layers());
  if (layers.empty()) return "";
  m.freezeLayers(layers);
  int64_t trainable = 0, total = 0;
  for (const auto& p : m.parameters()) {
    total += p.numel();
    if (p.requires_grad()) trainable += p.numel();
  }
  const std::string what =
      "freeze=" + freeze + ": layer" + (layers.size() > 1 ? "s " : " ") + layerRangesText(layers);
  if (trainable == 0) fail(what, " hold every parameter of the model: nothing would train");
  std::string line = what + " frozen (weights and BatchNorm statistics stay as " +
                     (from_weights ? "loaded" : "initialised") + "); " + withCommas(trainable) + " of " +
                     withCommas(total) + " parameters train";
  if (!from_weights)
    line +=
        ". The model starts from scratch, so the frozen layers keep random weights: freeze is for "
        "fine-tuning from weights (model=X.pt or pretrained=)";
  return line;
}

RunModels buildRunModels(const TrainSession& s, const RunModelSource& src, const SafetensorsFile* resume) {
  RunModels r;
  r.model = model::buildModel(src.yaml, s.nc, src.modules);
  checkRebuiltAsPickled(src.model_file, src.from_weights, *r.model);
  if (!src.start.empty() && !resume) {
    const StateDictReport rep = loadStateDict(*r.model, src.start, /*strict=*/false);
    r.weights_line = (src.start_from == s.args.pretrained ? "pretrained " : "weights ") + src.start_from +
                     ": " + rep.summary();
  }
  r.freeze_line = freezeModelLayers(*r.model, s.args.freeze, /*from_weights=*/!src.start.empty() || resume);
  r.ema = model::buildModel(src.yaml, s.nc, src.modules);
  r.model->to(s.device);
  r.ema->to(s.device);
  r.model->train();
  if (s.args.channels_last) {  // measured: +16% training step throughput on CPU (docs/PERFORMANCE.md)
    model::toChannelsLast(*r.model);
    model::toChannelsLast(*r.ema);
  }
  return r;
}

}  // namespace ywb
