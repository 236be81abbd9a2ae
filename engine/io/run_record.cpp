// The --json event codec (ywb/run_record.h): one table of field names per struct, used both ways.
#include "ywb/run_record.h"

#include <nlohmann/json.hpp>

namespace ywb {
namespace {

using Json = nlohmann::json;

// One table of (key, field) per struct, visited by the writer and by the reader: a field cannot be written
// under one name and read under another, or written and never read. Counters that the JSON counts from 1
// (epoch, batch, best_epoch) are handled next to the table.

template <class C, class V>
void classFields(C& c, V&& v) {
  v("name", c.name);
  v("instances", c.instances);
  v("precision", c.precision);
  v("recall", c.recall);
  v("mAP50", c.ap50);
  v("mAP50-95", c.ap);
}

template <class M, class V>
void epochFields(M& m, V&& v) {
  v("epochs", m.epochs);
  v("time", m.time_s);
  v("train/box_loss", m.train_box);
  v("train/cls_loss", m.train_cls);
  v("train/dfl_loss", m.train_dfl);
  v("metrics/precision(B)", m.precision);
  v("metrics/recall(B)", m.recall);
  v("metrics/mAP50(B)", m.map50);
  v("metrics/mAP50-95(B)", m.map);
  v("val/box_loss", m.val_box);
  v("val/cls_loss", m.val_cls);
  v("val/dfl_loss", m.val_dfl);
  v("lr/pg0", m.lr[0]);
  v("lr/pg1", m.lr[1]);
  v("lr/pg2", m.lr[2]);
  v("fitness", m.fitness);
  v("best", m.best);
  v("validated", m.validated);
  v("failed_images", m.failed_images);
  v("nonfinite_steps", m.nonfinite_steps);
  v("o2m", m.o2m);
  v("end2end", m.end2end);
  v("reg_max", m.reg_max);
}

template <class M, class V>
void stepFields(M& m, V&& v) {
  v("epochs", m.epochs);
  v("batches", m.batches);
  v("iteration", m.iteration);
  v("box", m.box);
  v("cls", m.cls);
  v("dfl", m.dfl);
  v("images_per_s", m.images_per_s);
  v("data_wait_s", m.data_wait_s);
  v("compute_s", m.compute_s);
  v("device_mem", m.device_mem);
  v("device_mem_peak", m.device_mem_peak);
  v("instances", m.instances);
  v("imgsz", m.imgsz);
  v("elapsed_s", m.elapsed_s);
  v("eta_s", m.eta_s);
  v("end2end", m.end2end);
  v("o2m", m.o2m);
  v("reg_max", m.reg_max);
}

template <class S, class V>
void summaryFields(S& s, V&& v) {
  v("run_dir", s.run_dir);
  v("last", s.last);
  v("best", s.best);
  v("epochs_completed", s.epochs_completed);
  v("best_fitness", s.best_fitness);
  v("stopped", s.stopped);
  v("early_stopped", s.early_stopped);
  v("reason", s.stop_reason);
  v("seconds", s.seconds);
  v("images_per_s", s.images_per_s);
  v("amp", s.amp);
  v("failed_image_loads", s.failed_image_loads);
  v("failed_images", s.failed_images);
  v("nonfinite_steps", s.nonfinite_steps);
  v("nonfinite_rollbacks", s.nonfinite_rollbacks);
  v("first_step_s", s.first_step_s);
  v("first_step_run_s", s.first_step_run_s);
}

// The two visitors: write a field into a JSON object, or read it back (a missing key leaves the default).
struct Writer {
  Json& j;
  template <class T>
  void operator()(const char* key, const T& value) const {
    j[key] = value;
  }
};

struct Reader {
  const Json& j;
  template <class T>
  void operator()(const char* key, T& value) const {
    const auto it = j.find(key);
    if (it != j.end()) value = it->template get<T>();
  }
};

Json classJson(const ClassResult& c) {
  Json j;
  classFields(c, Writer{j});
  return j;
}

Json epochJson(const EpochMetrics& m) {
  Json j;
  epochFields(m, Writer{j});
  j["epoch"] = m.epoch + 1;
  j["metric_kind"] = "COCO-exact";
  Json classes = Json::array();
  for (const auto& c : m.classes) classes.push_back(classJson(c));
  j["classes"] = classes;
  return j;
}

EpochMetrics epochOf(const Json& j) {
  EpochMetrics m;
  epochFields(m, Reader{j});
  m.epoch = j.value("epoch", 0) - 1;
  if (const auto it = j.find("classes"); it != j.end() && it->is_array()) {
    for (const Json& c : *it) {
      ClassResult r;
      classFields(r, Reader{c});
      m.classes.push_back(r);
    }
  }
  return m;
}

Json stepJson(const StepMetrics& m) {
  Json j;
  stepFields(m, Writer{j});
  j["epoch"] = m.epoch + 1;
  j["batch"] = m.batch + 1;
  j["lr"] = {m.lr[0], m.lr[1], m.lr[2]};
  return j;
}

StepMetrics stepOf(const Json& j) {
  StepMetrics m;
  stepFields(m, Reader{j});
  m.epoch = j.value("epoch", 0) - 1;
  m.batch = j.value("batch", int64_t(0)) - 1;
  if (const auto it = j.find("lr"); it != j.end() && it->is_array())
    for (size_t i = 0; i < 3 && i < it->size(); ++i) m.lr[i] = (*it)[i].get<double>();
  return m;
}

Json summaryJson(const TrainSummary& s) {
  Json j;
  summaryFields(s, Writer{j});
  j["best_epoch"] = s.best_epoch + 1;
  j["best_metrics"] = epochJson(s.best_metrics);
  // Where the wall time went, in the run's own order (an array: a JSON object would sort the names).
  Json split = Json::array();
  for (const TimeShare& t : s.time_split) split.push_back({{"name", t.name}, {"seconds", t.seconds}});
  j["time_split"] = std::move(split);
  return j;
}

TrainSummary summaryOf(const Json& j) {
  TrainSummary s;
  summaryFields(s, Reader{j});
  s.best_epoch = j.value("best_epoch", 0) - 1;
  if (const auto it = j.find("best_metrics"); it != j.end() && it->is_object()) s.best_metrics = epochOf(*it);
  if (const auto it = j.find("time_split"); it != j.end() && it->is_array()) {
    for (const Json& t : *it) {
      if (t.is_object()) s.time_split.push_back({t.value("name", std::string()), t.value("seconds", 0.0)});
    }
  }
  return s;
}

std::string withEvent(const char* event, Json j) {
  j["event"] = event;
  return j.dump();
}

bool phaseFromName(const std::string& name, TrainPhase& out) {
  for (int i = 0; i <= int(TrainPhase::Failed); ++i) {
    if (name == trainPhaseName(TrainPhase(i))) {
      out = TrainPhase(i);
      return true;
    }
  }
  return false;
}

}  // namespace

// The phase names are part of the record: the GUI reads them back (phaseFromName) from a child's events.
const char* trainPhaseName(TrainPhase p) {
  switch (p) {
    case TrainPhase::Scanning:
      return "scanning data";
    case TrainPhase::Building:
      return "building model";
    case TrainPhase::AmpCheck:
      return "AMP check";
    case TrainPhase::Warmup:
      return "warmup";
    case TrainPhase::Training:
      return "training";
    case TrainPhase::CloseMosaic:
      return "close mosaic";
    case TrainPhase::Validating:
      return "validating";
    case TrainPhase::Saving:
      return "saving";
    case TrainPhase::Finished:
      return "finished";
    case TrainPhase::Stopped:
      return "stopped";
    case TrainPhase::Failed:
      return "failed";
  }
  return "?";
}

std::string phaseEventJson(TrainPhase phase, const std::string& detail) {
  return withEvent("phase", {{"phase", trainPhaseName(phase)}, {"detail", detail}});
}

std::string logEventJson(const std::string& line) {
  return withEvent("log", {{"line", line}});
}

std::string stepEventJson(const StepMetrics& m) {
  return withEvent("step", stepJson(m));
}

std::string epochEventJson(const EpochMetrics& m) {
  return withEvent("epoch", epochJson(m));
}

std::string finishedEventJson(const TrainSummary& s) {
  return withEvent("finished", summaryJson(s));
}

TrainEvent parseTrainEvent(const std::string& line) {
  TrainEvent e;
  const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return e;
  try {
    const std::string event = j.value("event", std::string());
    if (event == "phase") {
      if (!phaseFromName(j.value("phase", std::string()), e.phase)) return e;
      e.text = j.value("detail", std::string());
      e.kind = TrainEvent::Kind::Phase;
    } else if (event == "log") {
      e.text = j.value("line", std::string());
      e.kind = TrainEvent::Kind::Log;
    } else if (event == "step") {
      e.step = stepOf(j);
      e.kind = TrainEvent::Kind::Step;
    } else if (event == "epoch") {
      e.epoch = epochOf(j);
      e.kind = TrainEvent::Kind::Epoch;
    } else if (event == "finished") {
      e.summary = summaryOf(j);
      e.kind = TrainEvent::Kind::Finished;
    }
  } catch (const Json::exception&) {  // a field of the wrong type: not one of our events
    e = TrainEvent{};
  }
  return e;
}

}  // namespace ywb
