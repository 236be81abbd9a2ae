// Waits in the thread's real event loop, as the running application does, for GUI tests that measure the GUI
// thread's responsiveness. QTest::qWait (and every QTRY_* macro built on it) polls instead: it processes the
// pending events, then sleeps 10 ms in nanosleep, so a timer that comes due during the sleep fires up to ~14
// ms late (perf of test_training_tab: every long off-CPU interval of the GUI thread during a run was that
// sleep). A stall probe would count that sleep as the application's stall; QEventLoop::exec blocks in the
// event dispatcher instead and is woken by the first due timer or posted event, as QApplication::exec is.
#pragma once
#include <QEventLoop>
#include <QTimer>

namespace ywb::test {

/// Runs a QEventLoop until `done()` holds (checked every 5 ms) or `timeout_ms` has passed; returns `done()`.
template <class Pred>
bool runEventLoopUntil(Pred done, int timeout_ms) {
  if (done()) return true;
  QEventLoop loop;
  QTimer check, deadline;
  check.setInterval(5);
  deadline.setSingleShot(true);
  QObject::connect(&check, &QTimer::timeout, &loop, [&] {
    if (done()) loop.quit();
  });
  QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
  check.start();
  deadline.start(timeout_ms);
  loop.exec();
  return done();
}

}  // namespace ywb::test
