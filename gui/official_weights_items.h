// The official weights (ywb::officialWeights) as items of a model/pretrained chooser: each item's text is the
// name the engine resolves ("yolo11n.pt"); the list shows its size and "downloaded" or "will download".
// Thread rules: GUI thread.
#pragma once
#include <QStyledItemDelegate>

class QComboBox;

namespace ywb::gui {

/// Draws a chooser's items as "<text>   (<note>)": an official name's size and status as they are now, else
/// the item's kNoteRole data (the combo's own text stays the bare name, which is what the argument gets).
class OfficialWeightsDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  static constexpr int kNoteRole = Qt::UserRole + 1;

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

/// Appends the official weights to `combo` (with their notes and a tooltip) and installs the delegate.
void addOfficialWeightsItems(QComboBox* combo);
/// Refreshes the "downloaded"/"will download" notes (after a download).
void refreshOfficialWeightsItems(QComboBox* combo);
/// "5.6 MB, downloaded" / "about 23.5 MB, will download" for `name`; empty for other names.
QString officialWeightsNote(const QString& name);

}  // namespace ywb::gui
