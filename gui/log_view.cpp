#include "log_view.h"

#include <QFontDatabase>
#include <QTime>

namespace ywb::gui {

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setMaximumBlockCount(20000);  // bounded memory for week-long runs
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setObjectName("logView");
}

void LogView::appendLine(const QString& line) {
  appendPlainText(QTime::currentTime().toString("HH:mm:ss") + "  " + line);
}

void LogView::appendLines(const QStringList& lines) {
  if (!lines.isEmpty()) appendPlainText(lines.join('\n'));
}

}  // namespace ywb::gui
