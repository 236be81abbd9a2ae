#include "ywb/quick_start.h"

namespace ywb {

QuickStart quickStart(const std::string& dataset_folder) {
  QuickStart q;
  // Small images and few objects per image: a YOLOv8n from scratch learns them on a CPU in minutes.
  q.dataset.out = dataset_folder;
  q.dataset.train = 256;
  q.dataset.val = 48;
  q.dataset.imgsz = 160;
  q.dataset.seed = 11;
  q.dataset.max_objects = 4;
  TrainArgs& a = q.train;
  a.data = dataset_folder + "/data.yaml";
  a.model = "yolov8n.yaml";
  a.imgsz = 160;
  a.batch = 16;
  a.epochs = 80;
  a.close_mosaic = 10;
  a.workers = 2;
  a.device = "cpu";
  a.amp = false;
  a.patience = 0;
  a.name = "quickstart";
  return q;
}

}  // namespace ywb
