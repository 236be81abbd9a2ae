#include "placeholder_tab.h"

#include <QLabel>
#include <QVBoxLayout>

namespace ywb::gui {

PlaceholderTab::PlaceholderTab(const QString& title, const QString& description, QWidget* parent)
    : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* heading = new QLabel("<h2>" + title.toHtmlEscaped() + "</h2>", this);
  auto* text = new QLabel(description, this);
  text->setWordWrap(true);
  text->setObjectName("placeholderDescription");
  layout->addWidget(heading);
  layout->addWidget(text);
  layout->addStretch(1);
}

}  // namespace ywb::gui
