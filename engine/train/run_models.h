// What a training run builds its model from (a YAML, a weights file, a resumed checkpoint's record,
// pretrained weights to transfer) and the build itself: the model and its EMA copy, on the run's device.
// Thread rules: runModelSource on the session's thread (it may download and logs); buildRunModels on any one
// thread, beside the dataset scan (it reads `s` and `src` only and logs nothing; the caller logs its line).
#pragma once
#include <string>

#include "io/safetensors.h"
#include "model/detection_model.h"
#include "train/model_loader.h"

namespace ywb {

struct TrainSession;

struct RunModelSource {
  std::string yaml;               ///< what model::buildModel builds (a YAML path or text)
  std::string modules;            ///< the Ultralytics module form ("8.3"/"8.4"; empty: the YAML's own)
  std::string model_file;         ///< model= resolved (an official name's cached file)
  WeightsWithModel from_weights;  ///< model=X.pt: checked against its pickled modules once built
  NamedTensors start;             ///< weights to transfer by name and shape (model=X.pt or pretrained=)
  std::string start_from;         ///< which argument `start` came from
};

/// Resolves model= and pretrained= (an official name is downloaded into the cache first when missing, with
/// progress in the run's log); a resumed run rebuilds what its checkpoint recorded.
RunModelSource runModelSource(TrainSession& s, const SafetensorsFile* resume);

struct RunModels {
  model::DetectionModel model{nullptr};
  model::DetectionModel ema{nullptr};
  std::string weights_line;  ///< the transfer's summary for the log, empty when nothing was transferred
  std::string freeze_line;   ///< what `freeze` froze, for the log; empty when nothing
};

/// Applies a `freeze` value (canonical text) to a built model and returns the log line saying what it froze
/// and how many parameters still train ("" when it names no layer). `from_weights`: the model holds loaded
/// weights (a from-scratch run is told its frozen layers keep their random ones). Throws ywb::Error when the
/// value names layers the model does not have, or leaves nothing to train.
std::string freezeModelLayers(model::DetectionModelImpl& m, const std::string& freeze, bool from_weights);

/// Builds the model (weights transferred unless resuming, `freeze` applied) and its EMA copy, moved to
/// s.device, in training mode, channels-last when the run asks.
RunModels buildRunModels(const TrainSession& s, const RunModelSource& src, const SafetensorsFile* resume);

}  // namespace ywb
