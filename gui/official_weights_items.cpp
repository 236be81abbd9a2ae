#include "official_weights_items.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QFontMetrics>
#include <algorithm>

#include "ywb/pretrained.h"

namespace ywb::gui {
namespace {

void widenPopup(QComboBox* combo) {
  // The list draws "<name>   (<note>)": wide enough for the longest, whatever the field's own width.
  int widest = 0;
  const QFontMetrics fm(combo->view()->font());
  for (int i = 0; i < combo->count(); ++i) {
    const QString note = combo->itemData(i, OfficialWeightsDelegate::kNoteRole).toString();
    widest = std::max(widest, fm.horizontalAdvance(combo->itemText(i) + "   (" + note + ")"));
  }
  combo->view()->setMinimumWidth(widest + 40);  // margins and the scroll bar
}

}  // namespace

void OfficialWeightsDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
  QStyledItemDelegate::initStyleOption(option, index);
  // Read afresh at each paint (a stat per item): a download since the list was filled shows as "downloaded".
  QString note = officialWeightsNote(index.data(Qt::DisplayRole).toString());
  if (note.isEmpty()) note = index.data(kNoteRole).toString();
  if (!note.isEmpty()) option->text += "   (" + note + ")";
}

QString officialWeightsNote(const QString& name) {
  const ywb::OfficialWeights* w = ywb::findOfficialWeights(name.toStdString());
  if (!w) return {};
  const QString size = QString::number(double(w->size_bytes) / 1e6, 'f', 1) + " MB";
  return (w->size_exact ? size : QObject::tr("about %1").arg(size)) + ", " +
         (ywb::isWeightsCached(*w) ? QObject::tr("downloaded") : QObject::tr("will download"));
}

void addOfficialWeightsItems(QComboBox* combo) {
  if (!qobject_cast<OfficialWeightsDelegate*>(combo->itemDelegate()))
    combo->setItemDelegate(new OfficialWeightsDelegate(combo));
  for (const auto& w : ywb::officialWeights()) {
    const QString name = QString::fromStdString(w.file);
    combo->addItem(name);
    const int i = combo->count() - 1;
    combo->setItemData(i, officialWeightsNote(name), OfficialWeightsDelegate::kNoteRole);
    combo->setItemData(
        i,
        QObject::tr("COCO-pretrained %1 (Ultralytics, AGPL-3.0); downloaded into %2 on first use")
            .arg(name, QString::fromStdString(ywb::weightsCacheDir())),
        Qt::ToolTipRole);
  }
  widenPopup(combo);
}

void refreshOfficialWeightsItems(QComboBox* combo) {
  for (int i = 0; i < combo->count(); ++i) {
    const QString note = officialWeightsNote(combo->itemText(i));
    if (!note.isEmpty()) combo->setItemData(i, note, OfficialWeightsDelegate::kNoteRole);
  }
  widenPopup(combo);
}

}  // namespace ywb::gui
