// Reading COCO instances (ground truth) and COCO results (detections) JSON into the public structs.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "ywb/coco_eval.h"

namespace ywb {
namespace {

using Json = nlohmann::json;

Json parseJson(const std::string& text, const std::string& source) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    fail(source, ": not valid JSON (", e.what(), "); check that the file is complete and is COCO JSON");
  }
}

const Json& member(const Json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(where, ": missing \"", key, "\"");
  return *it;
}

int64_t integerOf(const Json& v, const std::string& where, const char* key) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return int64_t(d);
  }
  if (v.is_string()) {
    fail(where, ": \"", key, "\" is the string \"", v.get<std::string>(),
         "\"; only image ids may be strings, this one must be an integer as in COCO");
  }
  fail(where, ": \"", key, "\" must be an integer, found ", v.dump());
}

double numberOf(const Json& v, const std::string& where, const char* key) {
  if (!v.is_number()) fail(where, ": \"", key, "\" must be a number, found ", v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(where, ": \"", key, "\" is not finite");
  return d;
}

void readBox(const Json& obj, const std::string& where, double* x, double* y, double* w, double* h) {
  const Json& b = member(obj, "bbox", where);
  if (!b.is_array() || b.size() != 4) {
    fail(where, ": \"bbox\" must be [x, y, width, height], found ", b.dump());
  }
  *x = numberOf(b[0], where, "bbox");
  *y = numberOf(b[1], where, "bbox");
  *w = numberOf(b[2], where, "bbox");
  *h = numberOf(b[3], where, "bbox");
}

const Json& arrayMember(const Json& root, const char* key, const std::string& source) {
  const Json& a = member(root, key, source);
  if (!a.is_array()) fail(source, ": \"", key, "\" must be a list");
  return a;
}

std::string at(const std::string& source, const char* list, size_t i) {
  return source + ": " + list + "[" + std::to_string(i) + "]";
}

// Numbers for string image ids: the sorted distinct strings get 1..N (pycocotools sorts the ids, so the
// numbers keep its image order). Integer and string ids together cannot be sorted (Python refuses too).
void numberStringImageIds(const Json& images, const std::string& source, CocoGroundTruth& gt) {
  size_t strings = 0;
  for (const Json& im : images) {
    const auto id = im.is_object() ? im.find("id") : im.end();
    if (im.is_object() && id != im.end() && id->is_string()) {
      gt.string_image_ids.emplace(id->get<std::string>(), 0);
      ++strings;
    }
  }
  if (strings == 0) return;
  if (strings != images.size()) {
    fail(source, ": \"images\" mixes string and integer ids; use one kind (pycocotools cannot sort a mix)");
  }
  int64_t n = 0;
  for (auto& [name, number] : gt.string_image_ids) number = ++n;
}

// An image id: an integer, or a string known to the ground truth's table.
int64_t imageIdOf(const Json& v, const std::string& where, const std::map<std::string, int64_t>* table) {
  if (table && !table->empty()) {
    if (!v.is_string()) {
      fail(where, ": \"image_id\" is ", v.dump(), " but the ground truth names its images by strings");
    }
    const auto it = table->find(v.get<std::string>());
    if (it == table->end()) {
      fail(where, ": \"image_id\" \"", v.get<std::string>(), "\" is not an image of the ground truth");
    }
    return it->second;
  }
  if (v.is_string()) {
    fail(where, ": \"image_id\" is the string \"", v.get<std::string>(), "\"",
         table ? " but the ground truth names its images by integers"
               : "; string image ids need the ground truth that defines them (eval-coco gt=... dt=...)");
  }
  return integerOf(v, where, "image_id");
}

}  // namespace

CocoGroundTruth parseCocoGroundTruth(const std::string& json_text, const std::string& source) {
  const Json root = parseJson(json_text, source);
  if (!root.is_object()) {
    fail(source, ": expected a COCO instances object with \"images\", \"annotations\" and \"categories\"",
         root.is_array() ? " (this looks like a results list: detections go in dt=, ground truth in gt=)"
                         : "");
  }
  CocoGroundTruth gt;
  const Json& images = arrayMember(root, "images", source);
  gt.image_ids.reserve(images.size());
  numberStringImageIds(images, source, gt);
  for (size_t i = 0; i < images.size(); ++i) {
    const std::string where = at(source, "images", i);
    if (!images[i].is_object()) fail(where, ": expected an object");
    const Json& id = member(images[i], "id", where);
    gt.image_ids.push_back(id.is_string() ? gt.string_image_ids.at(id.get<std::string>())
                                          : integerOf(id, where, "id"));
  }
  const Json& cats = arrayMember(root, "categories", source);
  for (size_t i = 0; i < cats.size(); ++i) {
    const std::string where = at(source, "categories", i);
    if (!cats[i].is_object()) fail(where, ": expected an object");
    CocoCategory c;
    c.id = integerOf(member(cats[i], "id", where), where, "id");
    const auto name = cats[i].find("name");
    if (name != cats[i].end() && name->is_string()) c.name = name->get<std::string>();
    gt.categories.push_back(std::move(c));
  }
  const Json& anns = arrayMember(root, "annotations", source);
  gt.annotations.reserve(anns.size());
  for (size_t i = 0; i < anns.size(); ++i) {
    const std::string where = at(source, "annotations", i);
    const Json& a = anns[i];
    if (!a.is_object()) fail(where, ": expected an object");
    CocoAnnotation ann;
    ann.id = integerOf(member(a, "id", where), where, "id");
    const Json& image = member(a, "image_id", where);
    if (!gt.string_image_ids.empty() && image.is_string() &&
        !gt.string_image_ids.count(image.get<std::string>())) {
      // Not an image of the file: a number no image has, so the evaluation skips it as pycocotools does.
      ann.image_id = int64_t(gt.string_image_ids.size()) + 1;
    } else {
      ann.image_id = imageIdOf(image, where, &gt.string_image_ids);
    }
    ann.category_id = integerOf(member(a, "category_id", where), where, "category_id");
    readBox(a, where, &ann.x, &ann.y, &ann.w, &ann.h);
    const auto area = a.find("area");
    if (area != a.end()) {
      ann.area = numberOf(*area, where, "area");
    } else {
      ann.area = ann.w * ann.h;  // pycocotools would stop with KeyError; the box area is the usual meaning
      ++gt.area_from_box;
    }
    const auto crowd = a.find("iscrowd");
    if (crowd != a.end()) {
      if (crowd->is_boolean())
        ann.iscrowd = crowd->get<bool>();
      else
        ann.iscrowd = integerOf(*crowd, where, "iscrowd") != 0;
    }
    gt.annotations.push_back(ann);
  }
  return gt;
}

CocoGroundTruth loadCocoGroundTruth(const std::string& path) {
  return parseCocoGroundTruth(readFile(path), path);
}

std::vector<CocoDetection> parseCocoDetections(const std::string& json_text, const std::string& source,
                                               const CocoGroundTruth* gt) {
  const Json root = parseJson(json_text, source);
  const Json* list = &root;
  if (root.is_object()) {
    const auto it = root.find("annotations");
    if (it == root.end() || !it->is_array()) {
      fail(source,
           ": expected a COCO results list [{\"image_id\", \"category_id\", \"bbox\", \"score\"}, ...]");
    }
    list = &*it;
  } else if (!root.is_array()) {
    fail(source,
         ": expected a COCO results list [{\"image_id\", \"category_id\", \"bbox\", \"score\"}, ...]");
  }
  std::vector<CocoDetection> dets;
  dets.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string where = at(source, "detections", i);
    const Json& o = (*list)[i];
    if (!o.is_object()) fail(where, ": expected an object");
    CocoDetection d;
    d.image_id = imageIdOf(member(o, "image_id", where), where, gt ? &gt->string_image_ids : nullptr);
    d.category_id = integerOf(member(o, "category_id", where), where, "category_id");
    readBox(o, where, &d.x, &d.y, &d.w, &d.h);
    d.score = numberOf(member(o, "score", where), where, "score");
    dets.push_back(d);
  }
  return dets;
}

std::vector<CocoDetection> loadCocoDetections(const std::string& path, const CocoGroundTruth* gt) {
  return parseCocoDetections(readFile(path), path, gt);
}

std::string cocoDetectionsJson(const std::vector<CocoDetection>& dets) {
  std::string out = "[";
  char buf[256];
  for (size_t i = 0; i < dets.size(); ++i) {
    const CocoDetection& d = dets[i];
    // %.17g of the rounded value keeps the rounding exact and the text short ("12.345", not 12.3449999...).
    const auto r = [](double v, double scale) { return std::round(v * scale) / scale; };
    std::snprintf(buf, sizeof buf,
                  "%s\n{\"image_id\": %lld, \"category_id\": %lld, \"bbox\": [%.15g, %.15g, %.15g, %.15g], "
                  "\"score\": %.15g}",
                  i ? "," : "", static_cast<long long>(d.image_id), static_cast<long long>(d.category_id),
                  r(d.x, 1e3), r(d.y, 1e3), r(d.w, 1e3), r(d.h, 1e3), r(d.score, 1e5));
    out += buf;
  }
  out += dets.empty() ? "]\n" : "\n]\n";
  return out;
}

void writeCocoDetections(const std::string& path, const std::vector<CocoDetection>& dets) {
  writeFileAtomic(path, cocoDetectionsJson(dets));
}

}  // namespace ywb
