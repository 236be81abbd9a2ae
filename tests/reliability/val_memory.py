#!/usr/bin/env python3
"""Peak host RSS of training vs validation, per epoch, of a real `ywb train` run (issue 17).

Runs `ywb train ... --json` and follows its phase events; the kernel's peak-RSS counter (VmHWM) of the child
is read and reset (`echo 5 > /proc/PID/clear_refs`) at each phase change, so every phase gets its own peak.
Also samples VmRSS every 50 ms for a curve. Needs only Python 3 and Linux /proc.

  tests/reliability/val_memory.py --ywb build/ci/engine/cli/ywb --out /tmp/valmem -- \
      data=/tmp/coco128/data.yaml model=yolov8n.yaml imgsz=320 batch=16 epochs=2 device=cpu

Writes OUT/phases.csv (epoch, phase, peak_rss_bytes) and OUT/rss_samples.csv (seconds, rss_bytes, phase),
and prints a table.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ywb", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cmd = [a.ywb, "train", *a.args, "--json"]
    print("command:", " ".join(cmd), flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    state = {"phase": "start", "epoch": 0}
    samples = []
    done = threading.Event()
    t0 = time.time()

    def sampler():
        while not done.is_set():
            kb = status_kb(p.pid, "VmRSS")
            if kb is not None:
                samples.append((time.time() - t0, kb * 1024, state["phase"]))
            time.sleep(0.05)

    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    phases = []  # (epoch, phase, peak bytes)
    can_reset = None
    current = ("start", 0)
    for line in p.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("event")
        if kind == "phase":
            name = ev.get("phase")
            if name in ("warmup", "training"):
                name = "training"  # one training phase per epoch
            if name == current[0]:
                continue
            hwm = status_kb(p.pid, "VmHWM")
            if hwm is not None:
                phases.append((current[1], current[0], hwm * 1024))
            ok = reset_peak(p.pid)
            can_reset = ok if can_reset is None else (can_reset and ok)
            if name == "training":
                state["epoch"] += 1
            current = (name, state["epoch"])
            state["phase"] = name
        elif kind == "finished":
            hwm = status_kb(p.pid, "VmHWM")
            if hwm is not None:
                phases.append((current[1], current[0], hwm * 1024))
    rc = p.wait()
    done.set()
    th.join()
    with open(os.path.join(a.out, "phases.csv"), "w") as f:
        f.write("epoch,phase,peak_rss_bytes\n")
        for e, ph, b in phases:
            f.write(f"{e},{ph},{b}\n")
    with open(os.path.join(a.out, "rss_samples.csv"), "w") as f:
        f.write("seconds,rss_bytes,phase\n")
        for s, b, ph in samples:
            f.write(f"{s:.2f},{b},{ph}\n")
    print(f"exit {rc}; peak reset per phase: {'yes' if can_reset else 'NO (peaks are cumulative)'}")
    print(f"{'epoch':>5} {'phase':<16} {'peak RSS MB':>12}")
    for e, ph, b in phases:
        print(f"{e:>5} {ph:<16} {b / 1e6:>12.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
