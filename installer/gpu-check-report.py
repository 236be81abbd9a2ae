#!/usr/bin/env python3
"""installer/gpu-check.sh's records and report (Python's standard library only).

  keep RUNS N|auto         keep an earlier call's runs up to N (auto: all it started); prints N
  record KIND N RC SECS CMD STDOUT ERR [NVSMI]
                           one benchmark run as a JSON line: its command, exit status and the JSON result it
                           printed last; for `ywb train` the run's figures from its whole event stream
  report OUT RUNS TESTS_RC TORCH GPU CORES SECS LOGS
                           gpu-check.json (everything) and gpu-check.md (the tables) in OUT
"""
import json
import os
import re
import statistics
import sys


def keep(path, n):
    recs = [json.loads(l) for l in open(path) if l.strip()]
    n = max([0] + [r.get("n", 0) for r in recs if r.get("rc") != -1]) if n == "auto" else int(n)
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs if r.get("n", 0) <= n and r.get("kind") != "note")
    print(n)


def train_figures(stdout, cmd, nvsmi):
    """The end-to-end row from `ywb train --json`'s events (one JSON object per line): start-up (process
    start and run start to the end of the first step: the finished event's first_step_s / first_step_run_s),
    steady images/s (per epoch from its first to its last logged step: training alone, the data wait
    included, validation not; the median over the epochs after the first, which holds cuDNN's autotuning and
    the warmup; and the same over whole epochs, validation and checkpoint included), and peak memory: the tensor allocator's at the logged steps, and the whole device's as
    nvidia-smi sampled it every 0.5 s during the run (context, cache and other processes included)."""
    events = []
    for line in stdout.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and "event" in e:
            events.append(e)
    fin = next((e for e in reversed(events) if e["event"] == "finished"), None)
    if fin is None:
        return None
    m = re.search(r"\bbatch=(\d+)", cmd)
    batch = int(m.group(1)) if m else 0
    by_epoch = {}
    for e in events:
        if e["event"] == "step":
            by_epoch.setdefault(e["epoch"], []).append(e)
    rates = {}
    for ep, steps in by_epoch.items():
        a, b = steps[0], steps[-1]
        if b["iteration"] > a["iteration"] and b["elapsed_s"] > a["elapsed_s"]:
            rates[ep] = (b["iteration"] - a["iteration"]) * batch / (b["elapsed_s"] - a["elapsed_s"])
    later = [rates[e] for e in sorted(rates) if e > 1] or list(rates.values())
    r = {k: fin.get(k) for k in ("epochs_completed", "seconds", "first_step_s", "first_step_run_s",
                                 "images_per_s", "amp", "best_fitness", "reason")}
    r["steady_images_per_s"] = round(statistics.median(later), 1) if later else None
    r["steady_epochs"] = [e for e in sorted(rates) if e > 1] or sorted(rates)
    # Whole epochs (issue 33's "steady state including validation"): each epoch's wall time from the end of
    # the one before (the epoch events' `time`, seconds since the run started; validation, the checkpoint
    # and the gap between epochs included), and its images (the step events' batches per epoch x batch; the
    # last batch may be smaller: an upper bound by less than one batch).
    ends = [(e["epoch"], e["time"]) for e in events if e["event"] == "epoch" and "time" in e]
    per_epoch = [t1 - t0 for (_, t0), (_, t1) in zip(ends, ends[1:])]
    r["epoch_seconds"] = [round(t, 2) for t in per_epoch]
    nb = next((e.get("batches") for e in events if e["event"] == "step" and e.get("batches")), None)
    r["steady_with_val_images_per_s"] = (round(nb * batch / statistics.median(per_epoch), 1)
                                         if nb and batch and per_epoch else None)
    # The tensor allocator: its pool (device_mem, reserved) and the tensors' peak of each step (device_mem_peak;
    # events of builds before round 3 session 5 carry the bytes in use between steps as device_mem instead).
    def peak_mib(key):
        v = [e.get(key, 0) for steps in by_epoch.values() for e in steps]
        return round(max(v) / 2**20) if v and max(v) > 0 else None
    r["peak_pool_mib"] = peak_mib("device_mem")
    r["peak_tensors_mib"] = peak_mib("device_mem_peak")
    used = []
    if nvsmi and os.path.exists(nvsmi):
        for line in open(nvsmi):
            try:
                used.append(int(line.split(",")[-1]))
            except ValueError:
                pass
    r["peak_nvml_mib"] = max(used) if used else None
    # The run's own split of its wall time (scan, AMP check, data wait, steps, validation, checkpoints, ...).
    r["time_split"] = {t["name"]: round(t["seconds"], 2) for t in fin.get("time_split") or []
                       if isinstance(t, dict) and "name" in t}
    return r


def last_json(out):
    """The JSON a bench verb printed: the whole output (bench loader prints one indented object), else its
    last line (the others print one line after their progress)."""
    if not out.strip():
        return None
    try:
        return json.loads(out)
    except ValueError:
        return json.loads(out.strip().splitlines()[-1])


def record(kind, n, rc, secs, cmd, stdout_path, err, nvsmi=""):
    out = open(stdout_path, errors="replace").read() if os.path.exists(stdout_path) else ""
    rec = {"kind": kind, "n": int(n), "command": "ywb " + cmd, "rc": int(rc), "seconds": int(secs)}
    try:
        if kind == "ywb train":
            rec["result"] = train_figures(out, cmd, nvsmi)
        else:
            rec["result"] = last_json(out)
    except Exception:
        rec["output"] = out[-600:]
    if int(rc) != 0:
        rec["error"] = err
    print(json.dumps(rec))


def fmt(v, spec=""):
    return "?" if v is None else format(v, spec)


def row(r):
    x = r.get("result") or {}
    if r.get("rc", 0) != 0 or not x:
        return f"| {r['command']} | error: {r.get('error', r.get('output', ''))[:200]} |"
    if r["kind"] == "ywb train":
        return (f"| {r['command'].replace('ywb ', '')} | {x.get('epochs_completed')} epochs in {fmt(x.get('seconds'), '.1f')} s; "
                f"first step at {fmt(x.get('first_step_s'), '.1f')} s (process) / {fmt(x.get('first_step_run_s'), '.1f')} s (run); "
                f"steady {fmt(x.get('steady_images_per_s'))} img/s (epochs {x.get('steady_epochs')}), "
                f"{fmt(x.get('steady_with_val_images_per_s'))} img/s with validation and checkpoints (median epoch "
                f"after the first; epochs 2+ took {x.get('epoch_seconds')} s), run average "
                f"{fmt(x.get('images_per_s'), '.1f')} img/s; peak memory {fmt(x.get('peak_nvml_mib'))} MiB (nvidia-smi, whole device), "
                f"{fmt(x.get('peak_pool_mib'))} MiB (tensor pool), {fmt(x.get('peak_tensors_mib'))} MiB (tensors' step peak); AMP {x.get('amp')}; mAP50-95 {fmt(x.get('best_fitness'), '.4f')}; "
                f"split (s): {', '.join(f'{k} {v}' for k, v in (x.get('time_split') or {}).items()) or '-'} |")
    if r["kind"] == "bench model":
        mem = x.get("gpu_mem_peak", -1)
        opt = f" optimizer={x['optimizer']}" if x.get("optimizer") else ""
        return (f"| {x.get('model')} b{x.get('batch')} amp={x.get('amp')} graphs={x.get('graphs')}{opt} | "
                f"{x.get('images_per_s', 0):.0f} img/s, step {x.get('total_ms', 0):.1f} ms (fwd {x.get('forward_ms', 0):.1f}, "
                f"loss {x.get('loss_ms', 0):.1f}, bwd {x.get('backward_ms', 0):.1f}, opt {x.get('step_ms', 0):.1f}), "
                f"peak {mem / 2**20:.0f} MiB |")
    keys = ["batch", "amp", "images_per_s", "compute_images_per_s", "data_wait_share", "train_images_per_s",
            "train_s", "val_s", "peak_device_mem", "gpu_util", "map50", "workers", "cpu_ms", "decode_ms", "augment_ms",
            "wait_ms_per_batch"]
    split = x.get("time_split") if isinstance(x.get("time_split"), dict) else {}
    parts = [f"{k} {x[k]}" for k in keys if k in x]
    # bench epoch: where setup and validation went (AMP check, the validation loader, inference, NMS, checkpoints)
    parts += [f"{k} {round(split[k], 3)}" for k in ("amp_check_s", "val_data_s", "val_inference_s", "val_nms_s",
                                                     "val_metrics_s", "checkpoint_s") if k in split]
    return f"| {r['command'].replace('ywb ', '')} | " + ", ".join(parts) + " |"


SHOTS = [("gui_gpu_training.png", "Training tab mid-run"), ("gui_gpu_system.png", "System dock mid-run")]


def gui_section(out, tests, tests_log):
    """The GUI on the GPU (test_gui_gpu): its result, the figures it printed and its screenshots."""
    md = ["## GUI on the GPU (test_gui_gpu)", ""]
    result = [t for t in tests if "TestGuiGpu" in t]
    md += ["    " + t for t in result] or ["Not run in this call (built with --no-gui, or no tests)."]
    md += ["    " + l.split("gui-gpu: ", 1)[1] for l in tests_log.splitlines() if "gui-gpu: " in l]
    md.append("")
    shots = [(n, what) for n, what in SHOTS if os.path.exists(os.path.join(out, n))]
    for name, what in shots:
        md += [f"{what}: `{name}`", "", f"![{what}]({name})", ""]
    if not shots:
        md += ["No screenshots in this call (the test's line above says why).", ""]
    return md


def report(out, runs_path, tests_rc, torch_info, gpu, cores, secs, logs):
    runs = [json.loads(l) for l in open(runs_path) if l.strip()]

    def load(p):
        try:
            return json.load(open(os.path.join(logs, p)))
        except Exception:
            return None
    tl = os.path.join(logs, "tests.log")
    tests_log = open(tl, errors="replace").read() if os.path.exists(tl) else ""
    tests = [re.sub(r"^\d+: ", "", l.strip()) for l in tests_log.splitlines() if re.search(r"\b(PASS|FAIL!|SKIP)\s+:", l)]
    shots = [n for n, _ in SHOTS if os.path.exists(os.path.join(out, n))]
    rep = {"gpu": gpu, "cpu_cores": int(cores), "torch": json.loads(torch_info), "tests_rc": int(tests_rc),
           "tests": tests, "gui_gpu": [l.split("gui-gpu: ", 1)[1] for l in tests_log.splitlines() if "gui-gpu: " in l],
           "screenshots": shots, "doctor": load("doctor.json"),
           "dependencies": open(os.path.join(logs, "dependencies.txt")).read().splitlines(),
           "runs": runs, "seconds": int(secs)}
    json.dump(rep, open(os.path.join(out, "gpu-check.json"), "w"), indent=1)
    t = int(tests_rc)
    md = ["# gpu-check report", "", f"GPU: {gpu or 'none found'}; CPU cores: {cores}; PyTorch/LibTorch: {torch_info}",
          f"Tests labelled cuda: {'passed' if t == 0 else 'not run in this call' if t < 0 else 'FAILED (see tests.log)'}; total {secs} s", ""]
    md += ["## Tests", ""] + ["    " + x for x in tests] + [""]
    md += gui_section(out, tests, tests_log)
    md += ["## ywb train (end to end)", "", "| run | figures |", "| --- | --- |"]
    md += [row(r) for r in runs if r["kind"] == "ywb train"] + [""]
    for kind in ("bench loader", "bench model", "bench train", "bench epoch"):
        md += [f"## {kind}", "", "| run | figures |", "| --- | --- |"] + [row(r) for r in runs if r["kind"] == kind] + [""]
    md += [r["note"] for r in runs if r["kind"] == "note"]
    open(os.path.join(out, "gpu-check.md"), "w").write("\n".join(md) + "\n")
    print(os.path.join(out, "gpu-check.md"))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"keep": keep, "record": record, "report": report}[cmd](*args)
