#include "io/pt_checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "io/pt_architecture.h"
#include "io/unpickler.h"
#include "ywb/weights.h"

namespace ywb {
namespace {

using pickle::Kind;
using pickle::Value;
using Json = nlohmann::ordered_json;

constexpr int kMaxDepth = 64;  // nesting far beyond any real checkpoint; stops cycles and hostile depth
// Work limits: a pickle can share one object many times (memo), so a walk of a small file can still be
// exponential ("billion laughs"). Real checkpoints stay far below (YOLOv8x: ~1,000 modules and values).
constexpr int64_t kMaxJsonValues = 20000;  // also bounds ordered_json's linear key lookups
constexpr int64_t kMaxModuleWork = 2000000;

std::string keyText(const Value* k) {
  switch (k->kind) {
    case Kind::Str:
      return k->s;
    case Kind::Int:
      return std::to_string(k->i);
    case Kind::Bool:
      return k->b ? "True" : "False";
    case Kind::None:
      return "None";
    default:
      return std::string("<") + pickle::kindName(k->kind) + ">";
  }
}

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// Data as JSON, for metadata: objects by their state, paths as text, tensors as a short description.
// Beyond the depth or the value budget the rest is shown as "...".
Json toJson(const Value* v, int depth, int64_t* budget) {
  if (!v || depth > kMaxDepth || --*budget < 0) return "...";
  switch (v->kind) {
    case Kind::None:
      return nullptr;
    case Kind::Bool:
      return v->b;
    case Kind::Int:
      return v->i;
    case Kind::Float:
      return v->f;
    case Kind::Str:
      return v->s;
    case Kind::Bytes:
      return "<" + std::to_string(v->s.size()) + " bytes>";
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set: {
      Json a = Json::array();
      for (const Value* x : v->items) a.push_back(toJson(x, depth + 1, budget));
      return a;
    }
    case Kind::Dict: {
      Json o = Json::object();
      for (const auto& [k, x] : v->entries) o[keyText(k)] = toJson(x, depth + 1, budget);
      return o;
    }
    case Kind::Global:
      return v->s;
    case Kind::Object: {
      if (v->s.rfind("pathlib.", 0) == 0) {  // PurePath.__reduce__: (class, parts)
        std::string p;
        for (const Value* x : v->items) {
          if (x->kind != Kind::Str) continue;
          if (!p.empty() && p.back() != '/') p += '/';
          p += x->s;
        }
        return p;
      }
      const Value* st = v->state;
      if (st && st->kind == Kind::Tuple && !st->items.empty()) st = st->items[0];  // (dict, slots)
      if (st && st->kind == Kind::Dict) return toJson(st, depth + 1, budget);
      return "<" + v->s + ">";
    }
    case Kind::Storage:
      return "<storage " + v->tensor.dtype + ">";
    case Kind::Tensor:
      return "<tensor " + v->tensor.dtype + " " + shapeText(v->tensor.sizes) + ">";
  }
  return nullptr;
}

Json toJson(const Value* v) {
  int64_t budget = kMaxJsonValues;
  return toJson(v, 0, &budget);
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

class Extractor {
 public:
  Extractor(const std::string& source, PtCheckpoint* out) : src_(source), out_(out) {}

  void module(const Value* m, const std::string& prefix, int depth) {
    const std::string here =
        prefix.empty() ? "the model" : "module '" + prefix.substr(0, prefix.size() - 1) + "'";
    if (depth > kMaxDepth) fail(src_, ": modules nested deeper than ", kMaxDepth, " at ", here);
    spend(1);
    if (!on_path_.insert(m).second) fail(src_, ": ", here, " contains itself");
    modules_.emplace_back(prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1), m->s);
    const Value* st = m->state;
    if (!st || st->kind != Kind::Dict || !st->get("_modules") || !st->get("_parameters"))
      fail(src_, ": ", here, " (", m->s, ") is not a torch.nn.Module (no _modules/_parameters state)");
    tensors(st->get("_parameters"), prefix, here, nullptr);
    tensors(st->get("_buffers"), prefix, here, st->get("_non_persistent_buffers_set"));
    const Value* children = st->get("_modules");
    if (children->kind != Kind::Dict) fail(src_, ": ", here, ": _modules is not a dict");
    for (const auto& [k, c] : children->entries) {
      if (c->kind == Kind::None) continue;
      if (k->kind != Kind::Str || c->kind != Kind::Object)
        fail(src_, ": ", here, ": child '", keyText(k), "' is a ", pickle::kindName(c->kind),
             ", not a module");
      module(c, prefix + k->s + ".", depth + 1);
    }
    on_path_.erase(m);
  }

  /// (path, class) of every module walked, in walk order.
  const std::vector<std::pair<std::string, std::string>>& modules() const { return modules_; }

  // A dict of tensors (state dict): every value must be a tensor, every key a string.
  void stateDict(const Value* d) {
    for (const auto& [k, t] : d->entries) {
      if (k->kind != Kind::Str || t->kind != Kind::Tensor)
        fail(src_, ": state dict entry '", keyText(k), "' is a ", pickle::kindName(t->kind),
             ", not a tensor");
      add(k->s, t);
    }
  }

 private:
  void tensors(const Value* d, const std::string& prefix, const std::string& here, const Value* skip) {
    if (!d) return;
    if (d->kind != Kind::Dict) fail(src_, ": ", here, ": parameters/buffers are not a dict");
    std::set<std::string> skipped;
    if (skip && (skip->kind == Kind::Set || skip->kind == Kind::List))
      for (const Value* s : skip->items)
        if (s->kind == Kind::Str) skipped.insert(s->s);
    spend(int64_t(d->entries.size()));
    for (const auto& [k, t] : d->entries) {
      if (t->kind == Kind::None || (k->kind == Kind::Str && skipped.count(k->s))) continue;
      if (k->kind != Kind::Str || t->kind != Kind::Tensor)
        fail(src_, ": ", here, ": '", keyText(k), "' is a ", pickle::kindName(t->kind), ", not a tensor");
      add(prefix + k->s, t);
    }
  }
  void spend(int64_t n) {
    work_ += n;
    if (work_ > kMaxModuleWork)
      fail(src_, ": the model's module tree is too large (one module shared many times?): not a checkpoint");
  }
  void add(const std::string& name, const Value* t) {
    if (!names_.insert(name).second) fail(src_, ": tensor '", name, "' appears twice");
    out_->tensors.emplace_back(name, t->tensor);
  }

  const std::string& src_;
  PtCheckpoint* out_;
  std::set<const Value*> on_path_;
  std::set<std::string> names_;
  std::vector<std::pair<std::string, std::string>> modules_;
  int64_t work_ = 0;
};

void describeModules(const Extractor& ex, PtCheckpoint* out) {
  const PtArchitecture a = describePtModules(ex.modules());
  out->metadata[kPtArchitectureKey] = ptArchitectureJson(a);
  std::string f;
  for (const auto& s : a.features) f += (f.empty() ? "" : "; ") + s;
  if (!f.empty()) out->metadata[kPtFeaturesKey] = f;
}

bool allTensors(const Value* d) {
  if (!d || d->kind != Kind::Dict || d->entries.empty()) return false;
  return std::all_of(d->entries.begin(), d->entries.end(),
                     [](const auto& kv) { return kv.second->kind == Kind::Tensor; });
}

// names: {0: 'a', 1: 'b'} or ['a', 'b'] -> JSON list; indices must run 0..n-1.
void readNames(const Value* v, const std::string& src, std::map<std::string, std::string>* meta) {
  if (!v) return;
  std::vector<std::string> names;
  if (v->kind == Kind::List || v->kind == Kind::Tuple) {
    for (const Value* n : v->items) names.push_back(n->kind == Kind::Str ? n->s : keyText(n));
  } else if (v->kind == Kind::Dict) {
    names.resize(v->entries.size());
    std::vector<bool> seen(names.size());
    for (const auto& [k, n] : v->entries) {
      if (k->kind != Kind::Int || k->i < 0 || size_t(k->i) >= names.size() || seen[size_t(k->i)])
        fail(src, ": class names are not numbered 0..", names.size() - 1, " (key '", keyText(k), "')");
      seen[size_t(k->i)] = true;
      names[size_t(k->i)] = n->kind == Kind::Str ? n->s : keyText(n);
    }
  } else {
    return;
  }
  (*meta)[weights_key::kNames] = dump(Json(names));
  (*meta)[weights_key::kNc] = std::to_string(names.size());
}

void readMetadata(const Value* root, const Value* model, const std::string& src, PtCheckpoint* out) {
  auto& meta = out->metadata;
  const Value* st = model ? model->state : nullptr;
  if (st && st->kind != Kind::Dict) st = nullptr;
  if (st) {
    readNames(st->get("names"), src, &meta);
    if (const Value* nc = st->get("nc"); nc && nc->kind == Kind::Int)
      meta[weights_key::kNc] = std::to_string(nc->i);
    if (const Value* y = st->get("yaml")) {
      if (y->kind == Kind::Dict) meta[weights_key::kYaml] = dump(toJson(y));
      if (y->kind == Kind::Str) meta[weights_key::kYaml] = y->s;
    }
  }
  const Value* args = root && root->kind == Kind::Dict ? root->get("train_args") : nullptr;
  if ((!args || args->kind == Kind::None) && st) args = st->get("args");
  if (args && args->kind != Kind::None) {
    const Json a = toJson(args);
    meta[weights_key::kArgs] = dump(a);
    if (a.is_object() && a.contains("imgsz")) {
      const Json& s = a["imgsz"];
      if (s.is_number_integer()) meta[weights_key::kImgsz] = std::to_string(s.get<int64_t>());
      if (s.is_array() && !s.empty() && s[0].is_number_integer())
        meta[weights_key::kImgsz] = std::to_string(s[0].get<int64_t>());
    }
  }
  if (!root || root->kind != Kind::Dict) return;
  const std::pair<const char*, const char*> keys[] = {{"date", "date"},
                                                      {"version", "ultralytics_version"},
                                                      {"epoch", "epoch"},
                                                      {"best_fitness", "best_fitness"},
                                                      {"train_metrics", "train_metrics"}};
  for (const auto& [key, as] : keys) {
    const Value* v = root->get(key);
    if (!v || v->kind == Kind::None) continue;
    const Json j = toJson(v);
    meta[as] = j.is_string() ? j.get<std::string>() : dump(j);
  }
}

std::string keysOf(const Value* d) {
  std::string s;
  for (size_t i = 0; i < d->entries.size() && i < 8; ++i) s += (i ? ", " : "") + keyText(d->entries[i].first);
  return d->entries.size() > 8 ? s + ", ..." : s;
}

}  // namespace

PtCheckpoint extractCheckpoint(const pickle::PickleData& data, const std::string& source) {
  PtCheckpoint out;
  Extractor ex(source, &out);
  const Value* root = data.root;
  if (!root) fail(source, ": empty pickle");
  if (root->kind == Kind::Object) {  // torch.save(model)
    ex.module(root, "", 0);
    describeModules(ex, &out);
    out.metadata[weights_key::kFormat] = kPtUltralyticsFormat;
    readMetadata(nullptr, root, source, &out);
    return out;
  }
  if (root->kind != Kind::Dict)
    fail(source, ": not a checkpoint: data.pkl holds a ", pickle::kindName(root->kind),
         ", not a dict or model");
  const Value* model = root->get("ema");
  if (!model || model->kind == Kind::None) model = root->get("model");
  if (model && model->kind == Kind::Object) {
    ex.module(model, "", 0);
    describeModules(ex, &out);
    out.metadata[weights_key::kFormat] = kPtUltralyticsFormat;
    readMetadata(root, model, source, &out);
  } else if (allTensors(model) || allTensors(root->get("state_dict")) || allTensors(root)) {
    const Value* sd = allTensors(model)                     ? model
                      : allTensors(root->get("state_dict")) ? root->get("state_dict")
                                                            : root;
    ex.stateDict(sd);
    out.metadata[weights_key::kFormat] = kPtStateDictFormat;
    if (sd != root) readMetadata(root, nullptr, source, &out);
  } else if (model && model->kind == Kind::None) {
    fail(source, ": the checkpoint holds no model ('model' and 'ema' are None)");
  } else {
    fail(source, ": not a checkpoint: data.pkl holds a dict (keys: ", keysOf(root),
         ") without a model ('model'/'ema') or tensors");
  }
  if (out.tensors.empty()) fail(source, ": the checkpoint's model has no tensors");
  return out;
}

void checkStorages(const PtArchive& archive, const PtCheckpoint& ckpt) {
  std::map<std::string, std::string> dtypes;
  for (const auto& [name, t] : ckpt.tensors) {
    auto [it, fresh] = dtypes.emplace(t.storage_key, t.dtype);
    if (!fresh && it->second != t.dtype)
      fail(archive.source(), ": storage '", t.storage_key, "' is read as ", it->second, " and as ", t.dtype,
           " (tensor '", name, "')");
    const uint64_t need = uint64_t(t.storage_numel) * pickle::dtypeSize(t.dtype);
    const uint64_t have = archive.storageSize(t.storage_key);
    if (have < need)
      fail(archive.source(), ": storage '", t.storage_key, "' of tensor '", name, "' holds ", have,
           " bytes, its ", t.storage_numel, " ", t.dtype, " elements need ", need, ": the file is damaged");
  }
}

PtFile openPtFile(const std::string& path) {
  PtFile f;
  f.map = std::make_unique<MappedFile>(path);
  f.archive = std::make_unique<PtArchive>(f.map->data(), f.map->size(), path);
  f.checkpoint = extractCheckpoint(f.archive->pickle(), path);
  checkStorages(*f.archive, f.checkpoint);
  return f;
}

const std::vector<std::string>& ptFileSuffixes() {
  static const std::vector<std::string> suffixes = {".pt", ".pth"};
  return suffixes;
}

bool isPtFile(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  for (const std::string& s : ptFileSuffixes())
    if (ext == s) return true;
  std::ifstream in(path, std::ios::binary);
  uint8_t head[4] = {};
  in.read(reinterpret_cast<char*>(head), 4);
  return in.gcount() == 4 && looksLikeZip(head, 4);
}

}  // namespace ywb
