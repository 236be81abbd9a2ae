#!/usr/bin/env python3
"""Label statistics of training samples under Ultralytics' published augmentation rules (docs/PARITY.md).

An independent model of what Ultralytics 8.3's training pipeline does to the *boxes* of a detection dataset
with its default hyperparameters (translate 0.1, scale 0.5, degrees/shear/perspective 0), written from its
documented behaviour, not from its code, and using nothing but NumPy:

- Mosaic-4 (the 'mosaic' stage): a 2s x 2s canvas, centre uniform in [s/2, 3s/2) per axis (truncated to
  int), the sample's image top-left of the centre and three partners (uniformly drawn here) around it, each
  tile cut where it leaves the canvas; labels shifted with their tile, clipped to the canvas, zero-area boxes
  dropped. Then RandomPerspective with border -s/2: M = T R C on the canvas (C centres it, R scales by
  U(1 - scale, 1 + scale), T translates by U(0.5 +- translate) x s), output s x s.
- close_mosaic (the 'single' stage): the image letterboxed onto s x s (centred, no upscaling), then the same
  RandomPerspective with no border.
- Both: box corners mapped by M, the enclosing box clipped to the output, kept when w and h > 2 px, area
  > 0.1 x the input box scaled by the drawn scale, aspect ratio < 100. Flips and HSV do not change counts
  or sizes.

tests/engine/test_data_transforms.cpp compares our SampleBuilder with the figures this prints for the shared
shapes/ set (../shared/fixtures/ultralytics/shapes); run it again to re-derive them:

    python3 tests/bench/ultralytics_label_geometry.py ../shared/fixtures/ultralytics/shapes 200000
"""
import glob
import json
import os
import random
import struct
import sys

import numpy as np


def jpeg_size(path):
    """(width, height) from a JPEG's first start-of-frame marker."""
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise ValueError(f"{path}: no start-of-frame marker")


def load_split(root, split="train"):
    labels, sizes = [], []
    for img in sorted(glob.glob(os.path.join(root, "images", split, "*.jpg"))):
        stem = os.path.splitext(os.path.basename(img))[0]
        txt = os.path.join(root, "labels", split, stem + ".txt")
        rows = np.loadtxt(txt, ndmin=2) if os.path.exists(txt) and open(txt).read().strip() else np.zeros((0, 5))
        labels.append(rows)
        sizes.append(jpeg_size(img))
    return labels, sizes


def to_pixels(rows, w, h, dx, dy):
    """Label rows (class, cx, cy, w, h normalised) as x1 y1 x2 y2 pixels of a w x h image placed at (dx, dy), in
    the rows' dtype."""
    b = np.empty((len(rows), 4), dtype=rows.dtype)
    b[:, 0] = (rows[:, 1] - rows[:, 3] / 2) * w + dx
    b[:, 2] = (rows[:, 1] + rows[:, 3] / 2) * w + dx
    b[:, 1] = (rows[:, 2] - rows[:, 4] / 2) * h + dy
    b[:, 3] = (rows[:, 2] + rows[:, 4] / 2) * h + dy
    return b


def perspective(b, insize, s, translate=0.1, scale=0.5):
    gain = random.uniform(1 - scale, 1 + scale)
    tx = random.uniform(0.5 - translate, 0.5 + translate) * s
    ty = random.uniform(0.5 - translate, 0.5 + translate) * s
    if len(b) == 0:
        return b
    # M = T R C with no rotation or shear: x' = gain * (x - insize / 2) + tx
    x = gain * (b[:, [0, 2]] - insize / 2) + tx
    y = gain * (b[:, [1, 3]] - insize / 2) + ty
    out = np.stack([x.min(1), y.min(1), x.max(1), y.max(1)], 1).clip(0, s)
    keep = box_candidates(b * gain, out)
    return out[keep]


def box_candidates(before, after):
    """RandomPerspective's filter on x1 y1 x2 y2 boxes `after` the warp against the boxes `before` it, scaled by the
    drawn scale: kept when w and h > 2 px, area > 0.1 x the scaled input box, aspect ratio < 100."""
    w1, h1 = before[:, 2] - before[:, 0], before[:, 3] - before[:, 1]
    w2, h2 = after[:, 2] - after[:, 0], after[:, 3] - after[:, 1]
    ar = np.maximum(w2 / (h2 + 1e-16), h2 / (w2 + 1e-16))
    return (w2 > 2) & (h2 > 2) & (w2 * h2 / (w1 * h1 + 1e-16) > 0.1) & (ar < 100)


def mosaic_tile(k, xc, yc, w, h, s):
    """Where Mosaic-4 puts tile k (0 top left, 1 top right, 2 bottom left, 3 bottom right; the sample's own image
    is tile 0) of a w x h image around the centre (xc, yc) of the 2s x 2s canvas: the canvas rectangle and the
    image rectangle that fills it, each (x1, y1, x2, y2)."""
    if k == 0:
        x1a, y1a, x2a, y2a = max(xc - w, 0), max(yc - h, 0), xc, yc
        x1b, y1b = w - (x2a - x1a), h - (y2a - y1a)
    elif k == 1:
        x1a, y1a, x2a, y2a = xc, max(yc - h, 0), min(xc + w, 2 * s), yc
        x1b, y1b = 0, h - (y2a - y1a)
    elif k == 2:
        x1a, y1a, x2a, y2a = max(xc - w, 0), yc, xc, min(2 * s, yc + h)
        x1b, y1b = w - (x2a - x1a), 0
    else:
        x1a, y1a, x2a, y2a = xc, yc, min(xc + w, 2 * s), min(2 * s, yc + h)
        x1b, y1b = 0, 0
    return (x1a, y1a, x2a, y2a), (x1b, y1b, x1b + x2a - x1a, y1b + y2a - y1a)


def mosaic(i, labels, sizes, s):
    idx = [i] + [random.randrange(len(labels)) for _ in range(3)]
    yc, xc = (int(random.uniform(s / 2, 3 * s / 2)) for _ in range(2))
    boxes = []
    for k, j in enumerate(idx):
        w, h = sizes[j]
        (x1a, y1a, _, _), (x1b, y1b, _, _) = mosaic_tile(k, xc, yc, w, h, s)
        boxes.append(to_pixels(labels[j], w, h, x1a - x1b, y1a - y1b))
    b = np.concatenate(boxes).clip(0, 2 * s)
    b = b[((b[:, 2] - b[:, 0]) > 0) & ((b[:, 3] - b[:, 1]) > 0)]
    return perspective(b, 2 * s, s)


def single(i, labels, sizes, s):
    w, h = sizes[i]
    r = min(s / w, s / h, 1.0)  # no upscaling
    nw, nh = round(w * r), round(h * r)
    left, top = round((s - nw) / 2 - 0.1), round((s - nh) / 2 - 0.1)
    return perspective(to_pixels(labels[i], nw, nh, left, top), s, s)


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    s = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    random.seed(0)
    labels, sizes = load_split(root)
    if max(max(sz) for sz in sizes) > s:
        sys.exit("images larger than imgsz would be resized first; not modelled here")
    out = {"images": len(labels), "samples": n, "imgsz": s}
    for name, fn in (("mosaic", mosaic), ("single", single)):
        counts, ws, hs = [], [], []
        for t in range(n):
            b = fn(t % len(labels), labels, sizes, s)
            counts.append(len(b))
            ws.append(b[:, 2] - b[:, 0])
            hs.append(b[:, 3] - b[:, 1])
        ws, hs = np.concatenate(ws), np.concatenate(hs)
        # Standard deviations per sample / per box: a test drawing m samples can expect its means within a few
        # sd / sqrt(m) of these.
        out[name] = {"boxes_per_sample": round(float(np.mean(counts)), 4), "boxes_sd": round(float(np.std(counts)), 3),
                     "mean_w": round(float(ws.mean()), 3), "w_sd": round(float(ws.std()), 3),
                     "mean_h": round(float(hs.mean()), 3), "h_sd": round(float(hs.std()), 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
