// Answers the next file chooser as a user does, for GUI tests under QT_QPA_PLATFORM=offscreen (where
// QFileDialog is Qt's own widget dialog): picks `path` and presses Open.
#pragma once
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QStringList>
#include <QTimer>

namespace ywb::test {

/// Schedules the answer; call it just before the click that opens the chooser. Looks for a visible
/// QFileDialog every 50 ms for up to 10 s; its name filters are recorded in `filters` (left empty when no
/// chooser appeared).
inline void answerFileDialog(const QString& path, QStringList* filters, int attempts = 200) {
  QTimer::singleShot(50, [path, filters, attempts] {
    for (QWidget* w : QApplication::topLevelWidgets()) {
      auto* d = qobject_cast<QFileDialog*>(w);
      if (!d || !d->isVisible()) continue;
      *filters = d->nameFilters();
      // Typed into the file name field, as a user pastes a path (selectFile() waits for the folder listing).
      if (auto* name = d->findChild<QLineEdit*>("fileNameEdit"))
        name->setText(QFileInfo(path).absoluteFilePath());
      static_cast<QDialog*>(d)->accept();  // QFileDialog::accept is protected; QDialog::accept is public
      return;
    }
    if (attempts > 1) answerFileDialog(path, filters, attempts - 1);
  });
}

}  // namespace ywb::test
