// What a path given to the GUI (command line, File > Open, drag and drop) is, decided by the engine's own
// readers: a data.yaml (loadDataConfig), a run folder (results.csv / args.yaml / weights/), weights the
// engine's model loader accepts (safetensors, Ultralytics .pt) or a YAML of training arguments; and the
// file-chooser filters for them, built from the engine's list of weights suffixes.
// Thread rules: classifyPath() is reentrant (it reads files; weights are loaded once to check them).
#pragma once
#include <QString>

namespace ywb::gui {

struct OpenedPath {
  enum Kind { Dataset, Run, Weights, Hyperparameters, Unknown };
  Kind kind = Unknown;
  QString path;     ///< absolute; for a folder holding a data.yaml, that data.yaml
  QString message;  ///< for Unknown: what is wrong and what to do
};

/// Classifies `path`; never throws (a path that is none of the above is Unknown with a message).
OpenedPath classifyPath(const QString& path);

/// QFileDialog filter for a dataset's data.yaml ("Dataset YAML (*.yaml *.yml)").
QString datasetFileFilter();

/// QFileDialog filter for the weights files the engine reads ("Weights (*.safetensors *.pt *.pth)").
QString weightsFileFilter();

/// The same with exported ONNX graphs (*.onnx), for what validates and predicts (the Predictions tab).
QString inferenceFileFilter();

/// QFileDialog filter for every file classifyPath opens: YAML (dataset or training arguments) and weights.
QString openableFileFilter();

}  // namespace ywb::gui
