// The `freeze` training argument, as Ultralytics defines it: a layer count N (layers 0 to N-1) or a list of
// layer indices. Its text forms, the layers it names and how a log line states them. Torch-free (the
// argument parsers' fuzz targets link it).
#pragma once
#include <string>
#include <vector>

namespace YAML {
class Emitter;
}

namespace ywb {

/// The canonical text of a `freeze` value: "" (none: empty, null, None, 0 or []), "N" for a layer count, or
/// "[a, b, c]" (ascending, without repeats) for a list. Takes "10", "[0, 1, 2]", "0,1,2" and Python's
/// spellings. Throws ywb::Error naming the value and the two accepted forms.
std::string canonicalFreezeText(const std::string& text);

/// The layers a canonical `freeze` value names in a model of `layer_count` layers, ascending. Throws
/// ywb::Error when it names a layer the model does not have or every layer (nothing would train).
std::vector<int> frozenLayerList(const std::string& canonical, int layer_count);

/// Writes the value as args.yaml holds it, in Ultralytics' form: null, an integer or a flow list [0, 3].
void emitFreezeYaml(YAML::Emitter& out, const std::string& canonical);

/// Ascending layer indices as ranges for a log line: "0-9", "0, 2, 5-7".
std::string layerRangesText(const std::vector<int>& layers);

}  // namespace ywb
