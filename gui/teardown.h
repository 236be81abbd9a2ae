// Destroying a QWidget closes it in ~QWidget, after the derived class's own members are gone: a child that
// loses its focus then (a QLineEdit emits editingFinished) calls back into a half-destroyed object, which
// read freed strings and could start a worker on a destroyed WorkerThreads (valgrind, test_yolo26_gui's
// Feature maps tab; heap corruption seen in CI). A widget whose slots use its own members calls this first
// in its destructor.
#pragma once
#include <QObject>

namespace ywb::gui {

inline void disconnectChildrenFrom(QObject* owner) {
  for (QObject* child : owner->findChildren<QObject*>()) QObject::disconnect(child, nullptr, owner, nullptr);
}

}  // namespace ywb::gui
