#!/usr/bin/env python3
"""Names the frames of a crash report's backtrace that lie in a program without exported symbols.

Usage: crash_symbols.py PROGRAM < crash-report

ywb's crash report prints frames as `PROGRAM(+0xOFFSET)[0xADDRESS]` when the function is not in the dynamic
symbol table (static functions, a binary linked without -rdynamic). The offset is relative to the load
address, which for a position-independent executable is what `nm` lists, so the enclosing symbol is the
one with the largest address not above it. Prints each such frame with its function (demangled), using
`nm -C -n` (binutils); other lines are copied unchanged.
"""
import bisect
import re
import subprocess
import sys


def symbols(program):
    out = subprocess.run(["nm", "-C", "-n", "--defined-only", program], capture_output=True, text=True,
                         check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1].lower() in ("t", "w"):
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    return addrs, names


def main():
    program = sys.argv[1]
    addrs, names = symbols(program)
    frame = re.compile(r"\(\+0x([0-9a-f]+)\)\[0x[0-9a-f]+\]")
    base = program.rsplit("/", 1)[-1]
    for line in sys.stdin:
        m = frame.search(line)
        if m and base in line and addrs:
            off = int(m.group(1), 16)
            i = bisect.bisect_right(addrs, off) - 1
            if i >= 0:
                line = line.rstrip("\n") + f"  = {names[i]} + 0x{off - addrs[i]:x}\n"
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
