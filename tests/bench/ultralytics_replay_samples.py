#!/usr/bin/env python3
"""Ultralytics' training samples for one seed, draw for draw (not a test): a real PyTorch DataLoader driven as
Ultralytics drives it (pytorch_loader_order.PersistentLoader, generator 6148914691236517205 + RANK, WORKERS loader
processes seeded by its seed_worker), whose dataset builds each sample as Ultralytics' published transforms do:
load (long side to imgsz, bilinear) into the process's image cache and Mosaic buffer, Mosaic-4 (p test, three
partners by random.choices from the buffer, centre y then x, labels clipped, zero-area boxes dropped),
RandomPerspective (its eight draws, M = T S R P C in float32, cv2.warpAffine, corners, clip, box filter), the
MixUp and CutMix p tests, RandomHSV (NumPy gains, 256-entry tables), vertical and horizontal flip, Format's BGR
test. Labels are float32 as Ultralytics keeps them. Only yolov8n's default hyperparameters are modelled.

It writes the samples of the first EPOCHS epochs as OUT/eE_PPPP.png (BGR, lossless) and OUT/eE_PPPP.txt (first
line: the image index; then `class cx cy w h`, normalised as Format writes them), the format train_loss_probe's `dump=` writes,
so that ultralytics_replay_compare.py can compare them with `ultralytics_stream=WORKERS` (docs/PARITY.md,
session 13):

  /usr/bin/python3 tests/bench/ultralytics_replay_samples.py SHAPES_DIR OUT_DIR [WORKERS=2] [EPOCHS=1]
"""
import glob
import math
import os
import random
import sys

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from pytorch_loader_order import RANK, PersistentLoader
from ultralytics_label_geometry import box_candidates, mosaic_tile

IMGSZ, BATCH = 128, 16
HYP = {"mosaic": 1.0, "translate": 0.1, "scale": 0.5, "hsv_h": 0.015, "hsv_s": 0.7, "hsv_v": 0.4, "fliplr": 0.5}


def read_labels(txt):
    if not os.path.exists(txt):
        return np.zeros((0, 5), np.float32)
    rows = [line.split() for line in open(txt).read().strip().splitlines() if line.strip()]
    lb = np.array(rows, dtype=np.float32).reshape(-1, 5)
    _, i = np.unique(lb, axis=0, return_index=True)  # Ultralytics drops duplicate rows
    return lb[i] if len(i) < len(lb) else lb


def xyxy_pixels(rows, w, h, padw, padh):
    """Ultralytics' _update_labels: xywh -> xyxy (float32), denormalise by the loaded size, add the tile offset."""
    b = np.empty((len(rows), 4), np.float32)
    xy, wh = rows[:, 1:3], rows[:, 3:5] / 2
    b[:, :2], b[:, 2:] = xy - wh, xy + wh
    b *= np.array([w, h, w, h], np.float32)
    b += np.array([padw, padh, padw, padh], np.float32)
    return b


class Samples(Dataset):
    def __init__(self, root):
        self.files = sorted(glob.glob(os.path.join(root, "images", "train", "*.jpg")))
        self.labels = [read_labels(os.path.join(root, "labels", "train", os.path.splitext(os.path.basename(f))[0] +
                                                ".txt")) for f in self.files]
        self.ims, self.buffer = {}, []
        self.capacity = min(len(self.files), BATCH * 8, 1000)

    def __len__(self):
        return len(self.files)

    def load(self, i):
        if i in self.ims:
            return self.ims[i]
        im = cv2.imread(self.files[i])
        h0, w0 = im.shape[:2]
        r = IMGSZ / max(h0, w0)
        if r != 1:
            im = cv2.resize(im, (min(math.ceil(w0 * r), IMGSZ), min(math.ceil(h0 * r), IMGSZ)),
                            interpolation=cv2.INTER_LINEAR)
        self.ims[i] = im
        self.buffer.append(i)
        if 1 < len(self.buffer) >= self.capacity:
            self.ims.pop(self.buffer.pop(0), None)
        return im

    def __getitem__(self, index):
        s = IMGSZ
        self.load(index)
        if random.uniform(0, 1) > HYP["mosaic"]:
            raise RuntimeError("only Mosaic samples are modelled")
        parts = [index] + random.choices(list(self.buffer), k=3)
        yc, xc = (int(random.uniform(-b, 2 * s + b)) for b in (-s // 2, -s // 2))
        canvas = np.full((2 * s, 2 * s, 3), 114, np.uint8)
        cls, boxes = [], []
        for k, j in enumerate(parts):
            img = self.load(j)
            h, w = img.shape[:2]
            (x1a, y1a, x2a, y2a), (x1b, y1b, x2b, y2b) = mosaic_tile(k, xc, yc, w, h, s)
            canvas[y1a:y2a, x1a:x2a] = img[y1b:y2b, x1b:x2b]
            cls.append(self.labels[j][:, 0])
            boxes.append(xyxy_pixels(self.labels[j], w, h, x1a - x1b, y1a - y1b))
        cls, boxes = np.concatenate(cls), np.concatenate(boxes)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, 2 * s)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, 2 * s)
        good = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) > 0
        cls, boxes = cls[good], boxes[good]
        # RandomPerspective, border -s/2: the draws in Ultralytics' order, M = T S R P C (float32).
        C = np.eye(3, dtype=np.float32)
        C[0, 2], C[1, 2] = -canvas.shape[1] / 2, -canvas.shape[0] / 2
        P = np.eye(3, dtype=np.float32)
        P[2, 0], P[2, 1] = random.uniform(-0.0, 0.0), random.uniform(-0.0, 0.0)
        R = np.eye(3, dtype=np.float32)
        a = random.uniform(-0.0, 0.0)
        scale = random.uniform(1 - HYP["scale"], 1 + HYP["scale"])
        R[:2] = cv2.getRotationMatrix2D(angle=a, center=(0, 0), scale=scale)
        S = np.eye(3, dtype=np.float32)
        S[0, 1] = math.tan(random.uniform(-0.0, 0.0) * math.pi / 180)
        S[1, 0] = math.tan(random.uniform(-0.0, 0.0) * math.pi / 180)
        T = np.eye(3, dtype=np.float32)
        T[0, 2] = random.uniform(0.5 - HYP["translate"], 0.5 + HYP["translate"]) * s
        T[1, 2] = random.uniform(0.5 - HYP["translate"], 0.5 + HYP["translate"]) * s
        M = T @ S @ R @ P @ C
        img = cv2.warpAffine(canvas, M[:2], dsize=(s, s), borderValue=(114, 114, 114))
        n = len(boxes)
        xy = np.ones((n * 4, 3), dtype=boxes.dtype)
        xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(n * 4, 2)
        xy = (xy @ M.T)[:, :2].reshape(n, 8)
        x, y = xy[:, [0, 2, 4, 6]], xy[:, [1, 3, 5, 7]]
        warped = np.concatenate((x.min(1), y.min(1), x.max(1), y.max(1)), dtype=boxes.dtype).reshape(4, n).T
        warped[:, [0, 2]] = warped[:, [0, 2]].clip(0, s)
        warped[:, [1, 3]] = warped[:, [1, 3]].clip(0, s)
        keep = box_candidates(boxes * scale, warped)
        cls, warped = cls[keep], warped[keep]
        random.uniform(0, 1), random.uniform(0, 1)  # MixUp and CutMix p tests (p 0)
        r = np.random.uniform(-1, 1, 3) * [HYP["hsv_h"], HYP["hsv_s"], HYP["hsv_v"]]
        x = np.arange(0, 256, dtype=r.dtype)
        lut_hue = ((x + r[0] * 180) % 180).astype(np.uint8)
        lut_sat = np.clip(x * (r[1] + 1), 0, 255).astype(np.uint8)
        lut_val = np.clip(x * (r[2] + 1), 0, 255).astype(np.uint8)
        lut_sat[0] = 0
        hue, sat, val = cv2.split(cv2.cvtColor(img, cv2.COLOR_BGR2HSV))
        im_hsv = cv2.merge((cv2.LUT(hue, lut_hue), cv2.LUT(sat, lut_sat), cv2.LUT(val, lut_val)))
        cv2.cvtColor(im_hsv, cv2.COLOR_HSV2BGR, dst=img)
        random.random()  # vertical flip (p 0)
        xywh = np.empty_like(warped)  # RandomFlip converts to xywh (float32), then flips the centres
        xywh[:, 0], xywh[:, 1] = (warped[:, 0] + warped[:, 2]) / 2, (warped[:, 1] + warped[:, 3]) / 2
        xywh[:, 2], xywh[:, 3] = warped[:, 2] - warped[:, 0], warped[:, 3] - warped[:, 1]
        if random.random() < HYP["fliplr"]:
            img = np.ascontiguousarray(np.fliplr(img))
            xywh[:, 0] = s - xywh[:, 0]
        random.uniform(0, 1)  # Format's BGR test (bgr 0)
        return index, img, cls, xywh * np.float32(1 / s)  # Format normalises


def seed_worker(_):
    s = torch.initial_seed() % 2**32
    np.random.seed(s)
    random.seed(s)


def main():
    root, out = sys.argv[1], sys.argv[2]
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    os.makedirs(out, exist_ok=True)
    g = torch.Generator()
    g.manual_seed(6148914691236517205 + RANK)
    loader = PersistentLoader(Samples(root), batch_size=BATCH, shuffle=True, num_workers=workers, generator=g,
                              worker_init_fn=seed_worker, collate_fn=lambda b: b)
    for e in range(epochs):
        pos = 0
        for batch in loader:
            for index, img, cls, boxes in batch:
                name = os.path.join(out, "e%d_%04d" % (e, pos))
                cv2.imwrite(name + ".png", img)
                with open(name + ".txt", "w") as f:
                    f.write("%d\n" % index)
                    for c, b in zip(cls, boxes):
                        f.write("%d %.9g %.9g %.9g %.9g\n" % (int(c), *b))
                pos += 1
    print("wrote", epochs, "epochs to", out)


if __name__ == "__main__":
    main()
