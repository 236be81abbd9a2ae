// The process heap, for processes that start run after run (the GUI).
// Thread rules: limitHeapArenas before any thread is started (it binds only arenas created after it; the GUI
// calls it during static initialisation); releaseFreeHeapMemory from any thread.
#pragma once

namespace ywb {

/// At most `arenas` glibc malloc arenas (nothing elsewhere). glibc gives new threads arenas of their own and
/// keeps what they freed; every run starts new threads (trainer, loader workers), so the GUI's RSS grew run
/// after run even with the runs' free memory handed back (docs/RELIABILITY.md: +17.7% over five runs with
/// glibc's default of 8 per core; with the cap set before any thread, +0.5% to +0.7% with 1 arena, which
/// the GUI uses, up to +10.6% with 2).
void limitHeapArenas(int arenas);

/// Hands the heap's free pages back to the system (glibc's malloc_trim; nothing elsewhere). glibc keeps
/// memory freed by a thread in that thread's arena, and every run starts new threads (trainer, loader
/// workers), so without this each finished run in a long-lived process (the GUI) left its peak behind:
/// measured +40% RSS over five GUI runs (docs/RELIABILITY.md). The trainer calls it when a run ends.
void releaseFreeHeapMemory();

}  // namespace ywb
