#include "dataset_files.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>

namespace ywb::gui {
namespace {

const QStringList& imageSuffixes() {
  static const QStringList s = {"jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff"};
  return s;
}

}  // namespace

QStringList splitImages(const std::vector<std::string>& sources) {
  QStringList out;
  for (const std::string& src : sources) {
    const QString path = QString::fromStdString(src);
    const QFileInfo fi(path);
    if (fi.isDir()) {
      QDirIterator it(path, QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QString f = it.next();
        if (imageSuffixes().contains(QFileInfo(f).suffix().toLower())) out << f;
      }
    } else if (fi.suffix().toLower() == "txt") {
      QFile f(path);
      if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) continue;
      QTextStream in(&f);
      while (!in.atEnd()) {
        const QString line = in.readLine().trimmed();
        if (!line.isEmpty())
          out << QDir::cleanPath(QFileInfo(line).isAbsolute() ? line : fi.dir().filePath(line));
      }
    } else if (fi.isFile()) {
      out << path;
    }
  }
  out.sort();
  out.removeDuplicates();
  return out;
}

QString labelPathFor(const QString& image) {
  QString p = image;
  const int i = p.lastIndexOf("/images/");
  if (i >= 0) p.replace(i, 8, "/labels/");
  const int dot = p.lastIndexOf('.');
  return (dot > p.lastIndexOf('/') ? p.left(dot) : p) + ".txt";
}

QString imagePathForLabel(const QString& label) {
  QString p = label;
  const int i = p.lastIndexOf("/labels/");
  if (i >= 0) p.replace(i, 8, "/images/");
  const QString stem = p.left(p.lastIndexOf('.'));
  for (const QString& s : imageSuffixes()) {
    for (const QString& c : {s, s.toUpper()})
      if (QFileInfo::exists(stem + "." + c)) return stem + "." + c;
  }
  return {};
}

QVector<LabelRow> readLabelRows(const QString& label_path) {
  QVector<LabelRow> rows;
  QFile f(label_path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return rows;
  QTextStream in(&f);
  while (!in.atEnd()) {
    const QStringList parts = in.readLine().simplified().split(' ', Qt::SkipEmptyParts);
    if (parts.size() != 5) continue;
    bool ok[5];
    LabelRow r;
    r.cls = parts[0].toInt(&ok[0]);
    r.cx = parts[1].toDouble(&ok[1]);
    r.cy = parts[2].toDouble(&ok[2]);
    r.w = parts[3].toDouble(&ok[3]);
    r.h = parts[4].toDouble(&ok[4]);
    if (ok[0] && ok[1] && ok[2] && ok[3] && ok[4] && r.cls >= 0) rows << r;
  }
  return rows;
}

}  // namespace ywb::gui
