// Reading an Ultralytics dataset's files from the GUI: image lists of a split, the images/ <-> labels/
// path rule, YOLO label rows. Thread rules: free functions, reentrant (safe on worker threads).
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <string>
#include <vector>

namespace ywb::gui {

struct LabelRow {
  int cls = 0;
  double cx = 0, cy = 0, w = 0, h = 0;  ///< normalised
};

/// Images of a split: folders are listed recursively, .txt files read as one path per line (relative to
/// the .txt's folder). Sorted.
QStringList splitImages(const std::vector<std::string>& sources);
/// The label file of an image (last "/images/" -> "/labels/", extension -> .txt).
QString labelPathFor(const QString& image);
/// The image of a label file (tries the common image extensions); "" when none exists.
QString imagePathForLabel(const QString& label);
/// Valid rows of a YOLO label file (malformed rows skipped: the scan report lists them).
QVector<LabelRow> readLabelRows(const QString& label_path);

}  // namespace ywb::gui
