#!/usr/bin/env python3
"""The indices a real PyTorch DataLoader visits when it is driven the way Ultralytics drives its training
loader: shuffle=True on a generator seeded with 6148914691236517205 + RANK (-1 in one process), the batch sampler repeated
forever behind one persistent iterator, and that iterator rebuilt at one epoch (Ultralytics rebuilds it when
Mosaic closes). Written from PyTorch's documented DataLoader behaviour; the reference for
test_sampler_order (run with PyTorch 1.13, the version of Debian's LibTorch).

usage: pytorch_loader_order.py N BATCH WORKERS EPOCHS RESET_EPOCH [PREFETCH]
prints one line per epoch: the epoch, then the dataset indices in the order the loader yields them.
"""
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset

RANK = int(os.getenv("RANK", -1))  # as Ultralytics reads it: -1 unless a DDP launcher set it


class Indices(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class RepeatForever:
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class PersistentLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "batch_sampler", RepeatForever(self.batch_sampler))
        self.iterator = super().__iter__()

    def __len__(self):
        return len(self.batch_sampler.sampler)

    def __iter__(self):
        for _ in range(len(self)):
            yield next(self.iterator)

    def rebuild(self):
        self.iterator = self._get_iterator()


def main():
    n, batch, workers, epochs, reset = map(int, sys.argv[1:6])
    prefetch = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    g = torch.Generator()
    g.manual_seed(6148914691236517205 + RANK)  # Ultralytics' build_dataloader; RANK -1 in one process
    extra = {"prefetch_factor": prefetch} if workers else {}
    loader = PersistentLoader(Indices(n), batch_size=batch, shuffle=True, num_workers=workers, generator=g, **extra)
    for e in range(epochs):
        if e == reset:
            loader.rebuild()
        print(e, " ".join(str(int(i)) for b in loader for i in b))


if __name__ == "__main__":
    main()
