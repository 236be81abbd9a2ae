// The process heap, for processes that start run after run (the GUI).
// Thread rules: call before starting runs (glibc's mallopt).
#pragma once

namespace ywb {

/// At most `arenas` glibc malloc arenas (nothing elsewhere). glibc gives new threads arenas of their own and
/// keeps what they freed; every run starts new threads (trainer, loader workers), so the GUI's RSS grew run
/// after run even with the runs' free memory handed back (docs/RELIABILITY.md: +17.7% over five runs with
/// glibc's default of 8 per core, flat with 2).
void limitHeapArenas(int arenas);

}  // namespace ywb
