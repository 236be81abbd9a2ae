// What one fuzz input does to each user-file parser, shared by the libFuzzer targets (fuzz_parsers.cpp) and
// the corpus replay of the default tests (tests/engine/test_fuzz_corpora.cpp). Each function feeds the bytes
// to the parser as the engine does for a real file and checks the parser's promises on what it accepted.
// A rejection is a ywb::Error (the caller catches it); a broken promise throws std::logic_error, which the
// fuzzer reports as a crash and the test as a failure. Thread rules: not reentrant (dataYaml writes a file).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ywb::fuzz {

/// YOLO label text (`class cx cy w h` or polygon rows) through parseLabels(), for nc = 1 + data[0] % 100.
/// parseLabels reports instead of throwing: returns whether the file is valid (usable for training).
bool labelRows(const uint8_t* data, size_t size);

/// A data.yaml through loadDataConfig(): the bytes are written to `dir`/data.yaml, where `dir` holds
/// images/train, images/val, images/test, train.txt and val.txt (see prepareDataYamlDir()).
void dataYaml(const uint8_t* data, size_t size, const std::string& dir);
/// Creates the folder dataYaml() needs (idempotent).
void prepareDataYamlDir(const std::string& dir);

/// A hyperparameter YAML (cfg=, args.yaml) through loadTrainArgsYamlText() and validate(); whatever loads
/// must survive the args.yaml round trip (trainArgsToYaml, then loaded again to the same values).
void argsYaml(const uint8_t* data, size_t size);

/// COCO JSON as `ywb eval-coco` reads it. The input is "GROUND_TRUTH\n#####\nDETECTIONS" (no separator: the
/// whole input is tried as both); ground truth that parses is evaluated against the detections, and the
/// 12 numbers must lie in [0, 1] or be -1.
void cocoJson(const uint8_t* data, size_t size);

/// An image file (any format: the decoder is chosen by content) through the dataset scan's probeImage() and
/// the loader's loadImage() at 64 px, with its EXIF orientation read: the bytes are written to `dir`/image.
/// What both accept must agree on the upright size and come out as 8-bit BGR.
void imageFile(const uint8_t* data, size_t size, const std::string& dir);

}  // namespace ywb::fuzz
