// What a path given to the GUI (command line, drag and drop) is, decided by the engine's own readers: a
// data.yaml (loadDataConfig), a run folder (results.csv / args.yaml / weights/), weights the engine's model
// loader accepts (safetensors; .pt once its loader reads them) or a YAML of training arguments.
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

}  // namespace ywb::gui
