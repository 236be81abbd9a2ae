// What a program of the workbench prints when it dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT): the signal, the thread's name and a backtrace on standard error, then the default action
// (the process still dies of the same signal, so exit statuses and core dumps stay as they were).
// A crash on a machine nobody can log into (a GPU machine lent for minutes) then says where it happened.
// Thread rules: call once, early, from the main thread (whose handler gets its own stack, so a stack
// overflow there is reported too); the report itself runs in the crashing thread.
#pragma once

namespace ywb {

/// Installs the handlers. `program` (a static string) starts the report's first line.
void installCrashReport(const char* program);

}  // namespace ywb
