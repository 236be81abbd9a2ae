#!/usr/bin/env python3
"""Draws memory curves as small standalone SVG files (no plotting library needed).

  plot_rss.py OUT.svg "Title" "x label" [LABEL=]CSV [[LABEL=]CSV ...]

Each CSV has a header and numeric first two columns (x, bytes); a third column, if present, names the phase
of each sample and is drawn as coloured bands (training / validating / saving). Bytes are shown in MB.
"""
import csv
import sys

W, H = 720, 300
L, R, T, B = 70, 20, 36, 44
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
BANDS = {"validating": "#fde0c5", "saving": "#e0e0e0", "training": "#ffffff"}


def read(path):
    xs, ys, phases = [], [], []
    with open(path) as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        if len(r) < 2:
            continue
        xs.append(float(r[0]))
        ys.append(float(r[1]) / 1e6)
        phases.append(r[2] if len(r) > 2 else "")
    return xs, ys, phases


def nice_ticks(lo, hi, n=5):
    span = hi - lo or 1.0
    raw = span / n
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 0.1
    step = min((s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw), default=raw)
    t = (lo // step) * step
    out = []
    while t <= hi + 1e-9:
        if t >= lo - 1e-9:
            out.append(t)
        t += step
    return out


def main():
    out, title, xlabel, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    labels = [p.split("=", 1)[0] if "=" in p else "" for p in paths]
    series = [read(p.split("=", 1)[1] if "=" in p else p) for p in paths]
    allx = [x for s in series for x in s[0]]
    ally = [y for s in series for y in s[1]]
    x0, x1 = min(allx), max(allx)
    y0, y1 = min(ally), max(ally)
    pad = max((y1 - y0) * 0.15, y1 * 0.03)
    y0, y1 = max(0.0, y0 - pad), y1 + pad

    def px(x):
        return L + (x - x0) / ((x1 - x0) or 1) * (W - L - R)

    def py(y):
        return T + (1 - (y - y0) / ((y1 - y0) or 1)) * (H - T - B)

    e = []
    e.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">')
    e.append(f'<rect width="{W}" height="{H}" fill="white"/>')
    # phase bands of the first series
    xs, ys, ph = series[0]
    if any(ph):
        start = 0
        for i in range(1, len(xs) + 1):
            if i == len(xs) or ph[i] != ph[start]:
                c = BANDS.get(ph[start])
                if c and ph[start] != "training":
                    xe = xs[i] if i < len(xs) else xs[-1]
                    e.append(f'<rect x="{px(xs[start]):.1f}" y="{T}" width="{max(1.0, px(xe) - px(xs[start])):.1f}" '
                             f'height="{H - T - B}" fill="{c}"/>')
                start = i
    for t in nice_ticks(y0, y1):
        e.append(f'<line x1="{L}" x2="{W - R}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#ddd"/>')
        e.append(f'<text x="{L - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in nice_ticks(x0, x1, 8):
        e.append(f'<text x="{px(t):.1f}" y="{H - B + 16}" text-anchor="middle">{t:g}</text>')
    e.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>')
    for k, (xs, ys, _) in enumerate(series):
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
        c = COLOURS[k % len(COLOURS)]
        e.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.6"/>')
        if len(xs) <= 30:
            for x, y in zip(xs, ys):
                e.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
    for k, lab in enumerate(labels):
        if lab:
            c = COLOURS[k % len(COLOURS)]
            e.append(f'<rect x="{L + 10}" y="{T + 8 + 16 * k}" width="12" height="3" fill="{c}"/>')
            e.append(f'<text x="{L + 28}" y="{T + 13 + 16 * k}">{lab}</text>')
    e.append(f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>')
    e.append(f'<text x="{(L + W - R) / 2}" y="{H - 8}" text-anchor="middle">{xlabel}</text>')
    e.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 {(T + H - B) / 2})">'
             'host RSS (MB)</text>')
    e.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(e) + "\n")


if __name__ == "__main__":
    main()
