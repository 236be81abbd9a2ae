#!/usr/bin/env python3
"""An independent model of Ultralytics' training-sample pipeline for one Mosaic epoch (not a test): load (long side
to imgsz, bilinear), Mosaic-4 with partners from each loader process's buffer of recently loaded images,
RandomPerspective (border -imgsz/2, fill 114, bilinear), the HSV tables, horizontal flip; written from
Ultralytics' published behaviour with real OpenCV/NumPy calls (Debian: python3-opencv, python3-numpy). The label
rules (tile placement, pixel boxes, the box filter) are those of ultralytics_label_geometry.py. It writes the
finished samples as a YOLO dataset (lossless PNG + labels), which train_loss_probe scores with every augmentation
off (docs/PARITY.md, session 11):

  /usr/bin/python3 tests/bench/ultralytics_pipeline_model.py SHAPES_DIR OUT_DIR SEED [workers=2 hsv_v=0 ...]
  build/ci/tests/train_loss_probe yolov8n.yaml OUT_DIR/data.yaml 0 0 1 scale=0 translate=0 hsv_h=0 hsv_s=0 \\
      hsv_v=0 fliplr=0
"""
import glob
import math
import os
import random
import sys

import cv2
import numpy as np

from ultralytics_label_geometry import box_candidates, load_split, mosaic_tile, to_pixels

IMGSZ, BATCH = 128, 16


class Worker:
    """One loader process: its own decoded-image cache and Mosaic buffer (indices of recently loaded images)."""

    def __init__(self, files, labels):
        self.files, self.labels = files, labels
        self.buffer, self.cache = [], {}
        self.capacity = min(len(files), BATCH * 8, 1000)

    def load(self, i):
        if i in self.cache:
            return self.cache[i]
        im = cv2.imread(self.files[i])
        h0, w0 = im.shape[:2]
        r = IMGSZ / max(h0, w0)
        if r != 1:
            size = (min(math.ceil(w0 * r), IMGSZ), min(math.ceil(h0 * r), IMGSZ))
            im = cv2.resize(im, size, interpolation=cv2.INTER_LINEAR)
        self.cache[i] = im
        self.buffer.append(i)
        if 1 < len(self.buffer) >= self.capacity:
            self.cache.pop(self.buffer.pop(0), None)
        return im

    def sample(self, i, hyp):
        s = IMGSZ
        images = [i] + [None] * 3
        self.load(i)  # the sample's own image enters the buffer before its partners are drawn
        images[1:] = random.choices(list(self.buffer), k=3)
        yc, xc = (int(random.uniform(s // 2, 2 * s - s // 2)) for _ in range(2))
        canvas = np.full((2 * s, 2 * s, 3), 114, np.uint8)
        cls, boxes = [], []
        for k, j in enumerate(images):
            img = self.load(j)
            h, w = img.shape[:2]
            (x1a, y1a, x2a, y2a), (x1b, y1b, x2b, y2b) = mosaic_tile(k, xc, yc, w, h, s)
            canvas[y1a:y2a, x1a:x2a] = img[y1b:y2b, x1b:x2b]
            cls.append(self.labels[j][:, 0])
            boxes.append(to_pixels(self.labels[j], w, h, x1a - x1b, y1a - y1b))
        cls, boxes = np.concatenate(cls), np.concatenate(boxes)
        boxes = boxes.clip(0, 2 * s)
        good = ((boxes[:, 2] - boxes[:, 0]) > 0) & ((boxes[:, 3] - boxes[:, 1]) > 0)
        cls, boxes = cls[good], boxes[good]
        # RandomPerspective with border -s/2 (output s x s): M = T R C in float32, as Ultralytics builds it.
        C = np.eye(3, dtype=np.float32)
        C[0, 2], C[1, 2] = -canvas.shape[1] / 2, -canvas.shape[0] / 2
        R = np.eye(3, dtype=np.float32)
        scale = random.uniform(1 - hyp["scale"], 1 + hyp["scale"])
        R[:2] = cv2.getRotationMatrix2D(angle=0.0, center=(0, 0), scale=scale)
        T = np.eye(3, dtype=np.float32)
        T[0, 2] = random.uniform(0.5 - hyp["translate"], 0.5 + hyp["translate"]) * s
        T[1, 2] = random.uniform(0.5 - hyp["translate"], 0.5 + hyp["translate"]) * s
        M = T @ R @ C
        img = cv2.warpAffine(canvas, M[:2], dsize=(s, s), borderValue=(114, 114, 114))
        m = len(boxes)
        xy = np.ones((m * 4, 3), dtype=boxes.dtype)
        xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(m * 4, 2)
        xy = (xy @ M.T)[:, :2].reshape(m, 8)
        x, y = xy[:, [0, 2, 4, 6]], xy[:, [1, 3, 5, 7]]
        warped = np.concatenate((x.min(1), y.min(1), x.max(1), y.max(1))).reshape(4, m).T.astype(np.float32)
        warped = warped.clip(0, s)
        keep = box_candidates(boxes * scale, warped)
        cls, warped = cls[keep], warped[keep]
        gains = (hyp["hsv_h"], hyp["hsv_s"], hyp["hsv_v"])
        r = np.random.uniform(-1, 1, 3) * list(gains)
        if any(gains):
            x = np.arange(0, 256, dtype=r.dtype)
            lut_hue = ((x + r[0] * 180) % 180).astype(np.uint8)
            lut_sat = np.clip(x * (r[1] + 1), 0, 255).astype(np.uint8)
            lut_val = np.clip(x * (r[2] + 1), 0, 255).astype(np.uint8)
            lut_sat[0] = 0
            hue, sat, val = cv2.split(cv2.cvtColor(img, cv2.COLOR_BGR2HSV))
            im_hsv = cv2.merge((cv2.LUT(hue, lut_hue), cv2.LUT(sat, lut_sat), cv2.LUT(val, lut_val)))
            cv2.cvtColor(im_hsv, cv2.COLOR_HSV2BGR, dst=img)
        if random.random() < hyp["fliplr"]:
            img = np.ascontiguousarray(np.fliplr(img))
            warped[:, [0, 2]] = s - warped[:, [2, 0]]
        return img, cls, warped


def main():
    src, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opts = dict(a.split("=") for a in sys.argv[4:])
    defaults = {"workers": 2, "hsv_h": 0.015, "hsv_s": 0.7, "hsv_v": 0.4, "scale": 0.5, "translate": 0.1,
                "fliplr": 0.5}
    hyp = {k: float(opts.get(k, v)) for k, v in defaults.items()}
    files = sorted(glob.glob(os.path.join(src, "images", "train", "*.jpg")))
    labels = [rows.astype(np.float32) for rows in load_split(src)[0]]  # Ultralytics keeps labels in float32
    random.seed(seed)
    np.random.seed(seed)
    order = list(range(len(files)))
    random.shuffle(order)
    workers = [Worker(files, labels) for _ in range(int(hyp["workers"]))]
    for d in ("images/train", "labels/train"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    counts = []
    for pos, i in enumerate(order):
        img, cls, boxes = workers[(pos // BATCH) % len(workers)].sample(i, hyp)
        name = "%04d" % pos
        cv2.imwrite(os.path.join(out, "images", "train", name + ".png"), img)
        with open(os.path.join(out, "labels", "train", name + ".txt"), "w") as f:
            for c, b in zip(cls, boxes):
                cx, cy = (b[0] + b[2]) / 2 / IMGSZ, (b[1] + b[3]) / 2 / IMGSZ
                f.write("%d %.7f %.7f %.7f %.7f\n" % (int(c), cx, cy, (b[2] - b[0]) / IMGSZ, (b[3] - b[1]) / IMGSZ))
        counts.append(len(cls))
    names = open(os.path.join(src, "data.yaml")).read().split("names:")[1]
    with open(os.path.join(out, "data.yaml"), "w") as f:
        f.write("path: %s\ntrain: images/train\nval: images/train\nnames:%s" % (out, names))
    print("samples", len(files), "boxes/sample %.3f" % np.mean(counts))


if __name__ == "__main__":
    main()
