#!/usr/bin/env python3
"""Compares two folders of training samples in the format of ultralytics_replay_samples.py (not a test): per
position, the image index, the pixels (how many differ, by how much) and the boxes (count, largest difference
of the normalised cx cy w h the loss gets). docs/PARITY.md, session 13:

  /usr/bin/python3 tests/bench/ultralytics_replay_compare.py REF_DIR OURS_DIR [--list N]
"""
import glob
import os
import sys

import cv2
import numpy as np


def read(stem):
    lines = open(stem + ".txt").read().split("\n")
    rows = [list(map(float, l.split())) for l in lines[1:] if l.strip()]
    return int(lines[0]), np.array(rows, np.float64).reshape(-1, 5), cv2.imread(stem + ".png")


def main():
    ref, ours = sys.argv[1], sys.argv[2]
    show = int(sys.argv[sys.argv.index("--list") + 1]) if "--list" in sys.argv else 10
    stems = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ref, "*.txt")))
    other_index = box_count = box_off = pixel_samples = 0
    worst_box, diffs, shown = 0.0, [], 0
    for stem in stems:
        i1, b1, im1 = read(os.path.join(ref, stem))
        i2, b2, im2 = read(os.path.join(ours, stem))
        notes = []
        if i1 != i2:
            other_index += 1
            notes.append("index %d vs %d" % (i1, i2))
        d = np.abs(im1.astype(int) - im2.astype(int))
        diffs.append(d)
        if d.max() > 0:
            pixel_samples += 1
            notes.append("pixels: %d differ, max %d" % ((d.max(2) > 0).sum(), d.max()))
        if len(b1) != len(b2):
            box_count += 1
            notes.append("boxes %d vs %d" % (len(b1), len(b2)))
        else:
            off = np.abs(b1 - b2).max() if len(b1) else 0.0  # both write the boxes in Ultralytics' order
            worst_box = max(worst_box, off)
            if off > 0:
                box_off += 1
                notes.append("boxes differ by up to %.3g" % off)
        if notes and shown < show:
            print(stem, "; ".join(notes))
            shown += 1
    d = np.stack(diffs)
    print("samples %d: other image %d, other box count %d, boxes not identical %d (largest difference %.3g), "
          "pixels differ in %d samples (%.4f%% of values, mean |diff| %.4f, max %d)"
          % (len(stems), other_index, box_count, box_off, worst_box, pixel_samples,
             100.0 * (d > 0).mean(), d.mean(), d.max()))


if __name__ == "__main__":
    main()
