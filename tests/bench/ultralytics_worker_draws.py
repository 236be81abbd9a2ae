#!/usr/bin/env python3
"""The augmentation draws of Ultralytics' training loader processes, from a real PyTorch DataLoader driven as
Ultralytics drives it (generator seeded with 6148914691236517205 + RANK, RANK -1 in one process, batches repeated behind one persistent
iterator, rebuilt at one epoch, each worker seeding Python's `random` with torch.initial_seed() % 2**32 as
Ultralytics' seed_worker does) and a dataset whose __getitem__ makes the Python draws of Ultralytics'
detection transforms in their order (Mosaic p test, three partners from the worker's buffer of recently
loaded images, centre y then x; RandomPerspective's eight; MixUp, CutMix; vertical, horizontal flip; Format's
BGR test). Written from their published behaviour; the reference for test_ultralytics_draws (PyTorch 1.13).

usage: ultralytics_worker_draws.py N BATCH WORKERS EPOCHS RESET_EPOCH IMGSZ
prints per sample: epoch position image worker partners(3) yc xc scale translate_x translate_y flip_lr
"""
import math
import random
import sys

import torch
from torch.utils.data import Dataset

# The loader Ultralytics drives (one persistent iterator over repeated batches), shared with the order reference.
from pytorch_loader_order import RANK, PersistentLoader


class Draws(Dataset):
    def __init__(self, n, batch, imgsz):
        self.n, self.imgsz, self.mosaic = n, imgsz, 1.0
        self.buffer, self.capacity = [], min(n, 8 * batch, 1000)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i not in self.buffer:  # load_image: a held image is not appended again
            self.buffer.append(i)
            if 1 < len(self.buffer) >= self.capacity:
                self.buffer.pop(0)
        parts, yc, xc = [-1, -1, -1], -1, -1
        if not random.uniform(0, 1) > self.mosaic:
            parts = random.choices(list(self.buffer), k=3)
            b = -self.imgsz // 2
            yc, xc = (int(random.uniform(-b, 2 * self.imgsz + b)) for _ in range(2))
        p = [random.uniform(-0.0, 0.0), random.uniform(-0.0, 0.0), random.uniform(-0.0, 0.0),
             random.uniform(0.5, 1.5), random.uniform(-0.0, 0.0), random.uniform(-0.0, 0.0),
             random.uniform(0.4, 0.6), random.uniform(0.4, 0.6)]
        random.uniform(0, 1), random.uniform(0, 1)  # MixUp, CutMix
        random.random()  # vertical flip (p 0)
        flip = random.random() < 0.5
        random.uniform(0, 1)  # Format
        w = torch.utils.data.get_worker_info()
        return [i, w.id if w else 0, *parts, yc, xc, p[3], p[6], p[7], int(flip)]


def seed_worker(_):
    s = torch.initial_seed() % 2**32
    random.seed(s)


def main():
    n, batch, workers, epochs, reset, imgsz = map(int, sys.argv[1:7])
    g = torch.Generator()
    g.manual_seed(6148914691236517205 + RANK)  # Ultralytics' build_dataloader; RANK -1 in one process
    data = Draws(n, batch, imgsz)
    loader = PersistentLoader(data, batch_size=batch, shuffle=True, num_workers=workers, generator=g,
                              worker_init_fn=seed_worker, collate_fn=lambda b: b)
    for e in range(epochs):
        if e == reset:
            data.mosaic = 0.0  # Ultralytics closes Mosaic, then rebuilds the iterator (new workers)
            loader.rebuild()
        pos = 0
        for b in loader:
            for s in b:
                print(e, pos, *(f"{v:.12g}" if isinstance(v, float) else v for v in s))
                pos += 1


if __name__ == "__main__":
    main()
