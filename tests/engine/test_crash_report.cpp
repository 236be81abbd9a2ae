// The crash report (ywb/crash_report.h): a real invalid memory access in a forked child, and a real `ywb`
// process killed with SIGSEGV. Expected values come from the test itself: the address it dereferences,
// the signal it sends, the exported function it crashes in.
#include <sys/wait.h>
#include <unistd.h>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <csignal>
#include <string>

#include "ywb/crash_report.h"

// Exported (the test executable links with -rdynamic) and not inlined, so the backtrace can name it.
extern "C" __attribute__((noinline)) void ywbTestCrashHere(volatile int* p) {
  *p = 1;
}

// Calls through a function pointer that is null at run time: the fault's instruction pointer is 0, where
// no unwinder can start; the report must still name this caller.
using VoidFn = void (*)();
extern "C" __attribute__((noinline)) void ywbTestCallThroughNull(VoidFn volatile* fn) {
  (*fn)();
  __asm__ volatile("");  // keeps the call a call (not a tail jump), as a call in the middle of a function is
}

// Runs `crash` in a forked child with the crash report installed; returns what the child wrote to stderr
// and its wait status (0 when the fork or the pipe failed).
struct ChildCrash {
  QString err;
  int status = 0;
};
template <typename Crash>
ChildCrash crashInChild(Crash crash) {
  ChildCrash c;
  int fds[2];
  if (::pipe(fds) != 0) return c;
  const pid_t pid = ::fork();
  if (pid < 0) return c;
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ywb::installCrashReport("crash-test");
    crash();
    ::_exit(0);  // not reached
  }
  ::close(fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, size_t(n));
  ::close(fds[0]);
  if (::waitpid(pid, &c.status, 0) != pid) c.status = 0;
  c.err = QString::fromStdString(err);
  return c;
}

class TestCrashReport : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void invalidAccessIsReportedWithAddressAndBacktrace() {
    const ChildCrash c =
        crashInChild([] { ywbTestCrashHere(reinterpret_cast<volatile int*>(uintptr_t(0x10))); });
    // The process still dies of the signal (exit status and core dumps unchanged).
    QVERIFY(WIFSIGNALED(c.status));
    QCOMPARE(WTERMSIG(c.status), SIGSEGV);
    const QString& e = c.err;
    QVERIFY2(e.contains("crash-test: fatal SIGSEGV (invalid memory access) in thread '"), qPrintable(e));
    QVERIFY2(e.contains("at address 0x0000000000000010"), qPrintable(e));  // the address written to
    QVERIFY2(e.contains("backtrace"), qPrintable(e));
    QVERIFY2(e.contains("ywbTestCrashHere"), qPrintable(e));  // the frame where it happened, by name
  }

  void nullFunctionCallNamesItsCaller() {
    const ChildCrash c = crashInChild([] {
      VoidFn volatile fn = nullptr;
      ywbTestCallThroughNull(&fn);
    });
    QVERIFY(WIFSIGNALED(c.status));
    QCOMPARE(WTERMSIG(c.status), SIGSEGV);
    const QString& e = c.err;
    QVERIFY2(e.contains("at address 0x0000000000000000"), qPrintable(e));  // the null callee
#if defined(__x86_64__)
    QVERIFY2(e.contains("a call through a null function pointer"), qPrintable(e));
    // Without the caller's frame the backtrace would end at the signal trampoline; the caller is named.
    QVERIFY2(e.contains("ywbTestCallThroughNull"), qPrintable(e));
#endif
  }

  void ywbReportsAFatalSignal() {
    // A long CPU benchmark, killed from outside once it runs: the report comes from ywb's own handler.
    QProcess p;
    p.start(YW_CLI_PATH, {"bench", "model", "model=yolov8n.yaml", "imgsz=64", "batch=1", "warmup=1",
                          "iters=1000000", "device=cpu", "threads=1"});
    QVERIFY(p.waitForStarted());
    QTest::qWait(1500);
    QCOMPARE(p.state(), QProcess::Running);
    ::kill(pid_t(p.processId()), SIGSEGV);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    QCOMPARE(p.exitCode(), SIGSEGV);  // Qt reports the terminating signal as the exit code of a crash
    const QString e = QString::fromLocal8Bit(p.readAllStandardError());
    QVERIFY2(e.contains("ywb: fatal SIGSEGV (invalid memory access) in thread '"), qPrintable(e));
    // Sent, not a fault: the report names the sender (this test) instead of a meaningless address.
    QVERIFY2(e.contains(QString("sent by process %1").arg(QCoreApplication::applicationPid())),
             qPrintable(e));
    // backtrace_symbols_fd lines: "object(symbol+0xoffset)[0xaddress]"; at least one with a symbol name.
    QVERIFY2(e.contains(QRegularExpression(R"(\((_Z|[A-Za-z_])[^)]*\+0x[0-9a-f]+\)\[0x[0-9a-f]+\])")),
             qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestCrashReport)
#include "test_crash_report.moc"
