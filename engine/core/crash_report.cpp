#include "ywb/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>

namespace ywb {
namespace {

const char* g_program = "ywb";

// Only async-signal-safe calls below: write(2), backtrace_symbols_fd (no malloc), and backtrace, whose
// one allocation (loading libgcc's unwinder) happened at install time.
void say(const char* s) {
  ssize_t r = ::write(STDERR_FILENO, s, std::strlen(s));
  (void)r;
}

void sayNumber(long v) {
  char buf[24];
  int i = int(sizeof buf) - 1;
  buf[i] = '\0';
  const bool neg = v < 0;
  unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    buf[--i] = char('0' + u % 10);
    u /= 10;
  } while (u && i > 1);
  if (neg) buf[--i] = '-';
  say(buf + i);
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGFPE:
      return "SIGFPE (arithmetic error)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGABRT:
      return "SIGABRT (aborted)";
    default:
      return "signal";
  }
}

void sayHex(unsigned long a) {
  char hex[19] = "0x0000000000000000";
  for (int i = 17; i >= 2; --i, a >>= 4) hex[i] = "0123456789abcdef"[a & 15];
  say(hex);
}

// A call through a null (or tiny) function pointer faults with the instruction pointer at that address,
// where the unwinder finds no frame information and the backtrace ends at the signal frame. The `call` has
// just pushed its return address: make the saved context read as if the fault had happened at that return
// address (the caller's frame), so the unwinder, which reads the signal frame's saved registers, goes on
// through the caller and its callers. Returns the caller's address, or 0 when the context was left alone.
unsigned long resumeFromCallerOfNullCall(void* context) {
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(context);
  if (!uc) return 0;
  greg_t* regs = uc->uc_mcontext.gregs;
  if (static_cast<unsigned long>(regs[REG_RIP]) >= 4096) return 0;
  const auto* sp = reinterpret_cast<const unsigned long*>(regs[REG_RSP]);
  if (!sp) return 0;
  const unsigned long ret = *sp;
  regs[REG_RIP] = static_cast<greg_t>(ret);
  regs[REG_RSP] += static_cast<greg_t>(sizeof(unsigned long));
  return ret;
#else
  (void)context;
  return 0;
#endif
}

void onFatal(int sig, siginfo_t* info, void* context) {
  char thread[17] = {};
  ::prctl(PR_GET_NAME, thread, 0, 0, 0);
  say("\n");
  say(g_program);
  say(": fatal ");
  say(signalName(sig));
  say(" in thread '");
  say(thread);
  say("' (tid ");
  sayNumber(long(::gettid()));
  say(", pid ");
  sayNumber(long(::getpid()));
  say(")");
  if (info && info->si_code <= 0) {  // sent (kill, raise, abort), not raised by the hardware
    say(" sent by process ");
    sayNumber(long(info->si_pid));
  } else if (sig == SIGSEGV || sig == SIGBUS) {
    say(" at address ");
    sayHex(reinterpret_cast<unsigned long>(info ? info->si_addr : nullptr));
    if (const unsigned long caller = resumeFromCallerOfNullCall(context)) {
      say("\na call through a null function pointer, made just before ");
      sayHex(caller);
      say(" (the backtrace goes on from that caller)");
    }
  }
  say("\nbacktrace (innermost first; please include it in a bug report):\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // The default action: the process dies of this signal.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void installCrashReport(const char* program) {
  g_program = program;
  void* warm[1];
  (void)::backtrace(warm, 1);  // loads the unwinder now, not inside the handler
  // The main thread's handler runs on its own stack: a stack overflow is a SIGSEGV too.
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = onFatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  ::sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace ywb
