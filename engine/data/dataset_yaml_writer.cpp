// `ywb dataset init`: recognise the folder layouts Ultralytics users have, infer the classes and write a
// data.yaml next to the images. Nothing is written until every check has passed; data.yaml goes last.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/text.h"
#include "data/image_list.h"
#include "ywb/dataset_yaml.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

struct Split {
  std::string key;    // train, val, test
  std::string entry;  // as written into data.yaml, relative to the root
  std::vector<std::string> images;
};

// Image files under `dir` (recursively), sorted; empty when `dir` is not a folder.
std::vector<std::string> imagesUnder(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && isImageFile(it->path().string()))
      out.push_back(it->path().lexically_normal().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Label .txt files under `dir` (recursively), skipping Ultralytics' own files (*.cache are not .txt).
std::vector<std::string> labelsUnder(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".txt")
      out.push_back(it->path().lexically_normal().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One name per non-empty line (classes.txt, obj.names).
std::vector<std::string> readNameList(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail("cannot read '", file.string(), "'; check its permissions");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trimmed(line);
    if (!t.empty()) names.push_back(t);
  }
  return names;
}

// The names of an existing data.yaml (a list or an id: name map); empty when it has none or is broken.
std::vector<std::string> namesOfYaml(const fs::path& yaml) {
  try {
    const YAML::Node names = YAML::LoadFile(yaml.string())["names"];
    std::vector<std::string> out;
    if (names && names.IsSequence()) {
      for (const auto& n : names) out.push_back(n.as<std::string>());
    } else if (names && names.IsMap()) {
      std::map<long, std::string> by_id;
      for (const auto& kv : names) by_id[kv.first.as<long>()] = kv.second.as<std::string>();
      long expect = 0;
      for (const auto& [id, name] : by_id) {
        if (id != expect++) return {};
        out.push_back(name);
      }
    }
    return out;
  } catch (const YAML::Exception&) {
    return {};
  }
}

std::string yamlQuoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string relativeTo(const fs::path& root, const std::string& path) {
  return fs::path(path).lexically_relative(root).generic_string();
}

// The subfolders of `dir` named `key` or starting with it (train2017, val2017, validation), sorted, exact
// name first.
std::vector<std::string> splitFolders(const fs::path& dir, const std::string& key) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && name.compare(0, key.size(), key) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    return (a == key) != (b == key) ? a == key : a < b;
  });
  return out;
}

// Finds the splits of one of the three layouts; empty when none has images.
std::vector<Split> findSplits(const fs::path& root, std::string& layout) {
  std::vector<Split> splits;
  // 1. root/images/{train,val[,test]} (Ultralytics' own datasets; also train2017/val2017 as in coco128)
  for (const char* key : {"train", "val", "test"}) {
    for (const std::string& name : splitFolders(root / "images", key)) {
      const std::string entry = "images/" + name;
      auto imgs = imagesUnder(root / entry);
      if (imgs.empty()) continue;
      splits.push_back({key, entry, std::move(imgs)});
      break;
    }
  }
  if (!splits.empty()) {
    layout = "images/<split>";
    return splits;
  }
  // 2. root/{train,val|valid[,test]}/images (Roboflow exports use "valid")
  for (const auto& [key, dirs] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"train", {"train"}}, {"val", {"val", "valid"}}, {"test", {"test"}}}) {
    for (const auto& d : dirs) {
      const std::string entry = d + "/images";
      auto imgs = imagesUnder(root / entry);
      if (!imgs.empty()) {
        splits.push_back({key, entry, std::move(imgs)});
        break;
      }
    }
  }
  if (!splits.empty()) {
    layout = "<split>/images";
    return splits;
  }
  // 3. flat root/images (+ root/labels): split below
  auto imgs = imagesUnder(root / "images");
  if (!imgs.empty()) {
    layout = "flat images/ + labels/";
    splits.push_back({"all", "images", std::move(imgs)});
  }
  return splits;
}

}  // namespace

DatasetInitReport initDatasetYaml(const DatasetInitOptions& o) {
  std::error_code ec;
  if (o.folder.empty()) fail("dataset init: no folder given; pass path=FOLDER");
  if (!fs::is_directory(o.folder, ec))
    fail("dataset init: folder '", o.folder, "' does not exist (or is not a folder); check the path");
  if (o.val_every < 2) fail("dataset init: val_every=", o.val_every, " must be at least 2");
  const fs::path root = fs::absolute(o.folder).lexically_normal();
  const fs::path clean_root = root.has_filename() ? root : root.parent_path();
  DatasetInitReport r;
  r.data_yaml = (clean_root / "data.yaml").string();
  const bool yaml_exists = fs::exists(r.data_yaml, ec);
  if (yaml_exists && !o.overwrite) {
    fail("dataset init: '", r.data_yaml, "' already exists; open it, or pass overwrite=true to replace it");
  }

  std::vector<Split> splits = findSplits(clean_root, r.layout);
  if (splits.empty()) {
    size_t labels = 0;
    for (const char* d : {"labels", "train/labels", "val/labels", "valid/labels"})
      labels += labelsUnder(clean_root / d).size();
    if (labels > 0) {
      fail("dataset init: '", clean_root.string(), "' has ", labels,
           " label file(s) but no images; put the images in images/ next to labels/ (same file names)");
    }
    fail("dataset init: no images in '", clean_root.string(),
         "'; expected images/train + images/val, train/images + val/images, or a flat images/ folder "
         "(",
         imageExtensionsText(), ")");
  }

  // The flat layout: a deterministic split (sorted paths; every val_every-th image to val) into lists.
  std::map<std::string, std::string> lists;  // file name -> contents
  if (splits.front().key == "all") {
    const std::vector<std::string> all = std::move(splits.front().images);
    if (all.size() < 2) {
      fail("dataset init: '", (clean_root / "images").string(),
           "' holds one image; a train/val split needs at least two");
    }
    Split train{"train", "train.txt", {}}, val{"val", "val.txt", {}};
    for (size_t i = 0; i < all.size(); ++i)
      (int(i % size_t(o.val_every)) == o.val_every - 1 ? val : train).images.push_back(all[i]);
    if (val.images.empty()) {  // fewer than val_every images: the last one validates
      val.images.push_back(train.images.back());
      train.images.pop_back();
    }
    splits = {train, val};
    for (const Split& s : splits) {
      std::string text;
      for (const auto& img : s.images) text += "./" + relativeTo(clean_root, img) + "\n";
      lists[s.entry] = text;
      if (fs::exists(clean_root / s.entry, ec) && !o.overwrite) {
        fail("dataset init: '", (clean_root / s.entry).string(),
             "' already exists; pass overwrite=true to replace the image lists");
      }
    }
  }
  for (const Split& s : splits) {
    const int n = int(s.images.size());
    if (s.key == "train") {
      r.train = s.entry;
      r.train_images = n;
    } else if (s.key == "val") {
      r.val = s.entry;
      r.val_images = n;
    } else if (s.key == "test") {
      r.test = s.entry;
      r.test_images = n;
    }
  }
  if (r.train.empty())
    fail("dataset init: found ", r.layout, " images but no train split; add a train folder");
  if (r.val.empty()) {
    // Ultralytics falls back to validating on train when there is no val split; say so.
    r.val = r.train;
    r.val_images = r.train_images;
    r.notes.push_back("no val split found: val uses the train images (add a val folder for honest metrics)");
  }

  // Labels: the largest class id decides nc when no names are given; orphans are worth a note.
  int orphans = 0;
  for (const Split& s : splits) {
    for (const auto& img : s.images) {
      const std::string label = labelPathFor(img);
      std::ifstream in(label);
      if (!in) continue;
      ++r.label_files;
      for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string first;
        if (!(fields >> first)) continue;
        ++r.label_rows;
        try {
          size_t used = 0;
          const long id = std::stol(first, &used);
          if (used != first.size() || id < 0) throw std::invalid_argument(first);
          r.max_class_id = std::max(r.max_class_id, int(std::min<long>(id, 1 << 20)));
        } catch (const std::exception&) {
          ++r.bad_rows;
        }
      }
    }
  }
  if (r.label_files == 0) {
    r.notes.push_back("no label files next to the images (labels/ mirrors images/ with .txt files)");
  }
  if (r.bad_rows > 0) {
    r.notes.push_back(std::to_string(r.bad_rows) +
                      " label row(s) do not start with a class id; `ywb dataset check` lists them");
  }
  {
    std::set<std::string> images;
    for (const Split& s : splits)
      for (const auto& img : s.images) images.insert(labelPathFor(img));
    std::set<std::string> dirs;
    for (const auto& l : images) dirs.insert(fs::path(l).parent_path().string());
    for (const auto& d : dirs) {
      std::error_code e;
      if (!fs::is_directory(d, e)) continue;
      for (const auto& entry : fs::directory_iterator(d, e))
        if (entry.path().extension() == ".txt" && !images.count(entry.path().lexically_normal().string()))
          ++orphans;
    }
  }
  if (orphans > 0)
    r.notes.push_back(std::to_string(orphans) + " label file(s) have no image (they are ignored)");

  // Names: given > classes.txt > one *.names file > the data.yaml being replaced > class0..N from labels.
  if (!o.names.empty()) {
    r.names = o.names;
    r.names_source = "names=";
  } else if (fs::is_regular_file(clean_root / "classes.txt", ec)) {
    r.names = readNameList(clean_root / "classes.txt");
    r.names_source = "classes.txt";
  } else {
    std::vector<fs::path> name_files;
    for (const auto& entry : fs::directory_iterator(clean_root, ec))
      if (entry.path().extension() == ".names") name_files.push_back(entry.path());
    if (name_files.size() == 1) {
      r.names = readNameList(name_files.front());
      r.names_source = name_files.front().filename().string();
    } else if (yaml_exists) {
      r.names = namesOfYaml(r.data_yaml);
      if (!r.names.empty()) r.names_source = "existing data.yaml";
    }
  }
  if (r.names.empty()) {
    if (r.max_class_id < 0) {
      fail("dataset init: no class ids in the labels of '", clean_root.string(),
           "' to infer the classes from; pass names=a,b,c or add a classes.txt (one name per line)");
    }
    for (int i = 0; i <= r.max_class_id; ++i) r.names.push_back("class" + std::to_string(i));
    r.names_source = "labels";
  } else if (r.max_class_id >= int(r.names.size())) {
    r.notes.push_back("labels use class id " + std::to_string(r.max_class_id) + " but " + r.names_source +
                      " names only " + std::to_string(r.names.size()) +
                      " classes; those rows will be reported as out of range");
  }

  // No `path:` key: both tools then take the YAML's folder as the root; Ultralytics would read `path: .` as
  // the working directory.
  std::ostringstream yaml;
  yaml << "# Written by `ywb dataset init` (layout " << r.layout << ", classes from " << r.names_source
       << ").\n# No path: the dataset root is this file's folder, for ywb and Ultralytics alike.\ntrain: "
       << r.train << "\nval: " << r.val << "\n";
  if (!r.test.empty()) yaml << "test: " << r.test << "\n";
  yaml << "nc: " << r.names.size() << "\nnames:\n";
  for (size_t i = 0; i < r.names.size(); ++i) yaml << "  " << i << ": " << yamlQuoted(r.names[i]) << "\n";
  for (const auto& [file, text] : lists) {
    writeFileAtomic((clean_root / file).string(), text);
    r.written.push_back((clean_root / file).string());
  }
  writeFileAtomic(r.data_yaml, yaml.str());
  r.written.push_back(r.data_yaml);
  return r;
}

std::string datasetInitText(const DatasetInitReport& r) {
  std::ostringstream out;
  out << "wrote " << r.data_yaml << " (layout " << r.layout << ")\n"
      << "  train: " << r.train << " (" << r.train_images << " images)\n"
      << "  val:   " << r.val << " (" << r.val_images << " images)\n";
  if (!r.test.empty()) out << "  test:  " << r.test << " (" << r.test_images << " images)\n";
  out << "  labels: " << r.label_files << " files, " << r.label_rows << " rows, largest class id "
      << r.max_class_id << "\n  classes: " << r.names.size() << " from " << r.names_source << "\n";
  for (const auto& n : r.notes) out << "  note: " << n << "\n";
  return out.str();
}

}  // namespace ywb
