#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/verb_registry.h"
#include "ywb/augment.h"
#include "ywb/preview.h"

namespace ywb::cli {
namespace {

int runPreview(const Args& a) {
  std::vector<std::string> known = {"data", "out", "seed", "imgsz", "count", "boxes", "split", "rect"};
  for (const auto& n : AugmentParams::names()) known.push_back(n);
  a.requireKnown(known);
  if (!a.has("data")) return reportError(a, "preview: missing data=path/to/data.yaml");
  PreviewOptions o;
  o.data = a.str("data");
  o.seed = uint64_t(a.integer("seed", 0));
  o.imgsz = int(a.integer("imgsz", o.imgsz));
  o.count = int(a.integer("count", o.count));
  o.boxes = a.boolean("boxes", true);
  o.split = a.str("split", "train");
  o.rect = a.boolean("rect", false);
  // The augmentation keys are training arguments: the same ranges and messages as `ywb train`.
  TrainArgs aug;
  for (const auto& n : AugmentParams::names())
    if (a.has(n)) aug.set(n, a.str(n));
  o.hyp = augmentParamsOf(aug);
  const std::string out = a.str("out", "preview.jpg");
  const RgbImage img = renderPreview(o);
  saveRgbImage(img, out);
  if (a.json) {
    std::cout << nlohmann::json{{"out", out}, {"width", img.width}, {"height", img.height}}.dump(2) << "\n";
  } else {
    std::cout << "Wrote " << out << " (" << img.width << "x" << img.height << ", " << o.count
              << " samples)\n";
  }
  return 0;
}

const RegisterVerb reg{
    {"preview", "render augmented training samples with boxes to an image",
     "data=data.yaml [out=preview.jpg] [seed=0] [imgsz=640] [count=4] [boxes=true] [split=train]\n"
     "        [rect=false] [hsv_h=.015 hsv_s=.7 hsv_v=.4 degrees=0 translate=.1 scale=.5 shear=0\n"
     "         perspective=0 flipud=0 fliplr=.5 bgr=0 mosaic=1 mixup=0 cutmix=0] [--json]\n\n"
     "Renders `count` augmented samples (Mosaic, perspective, MixUp, CutMix, HSV, flips, channel swap\n"
     "with the given Ultralytics hyperparameters) in a grid with boxes and class names, and writes it as\n"
     "JPEG (or PNG when out ends in .png). The same seed and settings give the same picture. rect=true\n"
     "shows samples as rect=true training builds them: one image each, at its rectangular shape.",
     runPreview}};

}  // namespace
}  // namespace ywb::cli
