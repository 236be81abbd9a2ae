#!/usr/bin/python3
"""Side-by-side reference for `ywb bench model loss=mse`: the same YOLOv8 architecture in PyTorch eager,
same synthetic input, same loss (mean of squared head outputs), same SGD settings and timing method.
Not part of the product; run with Debian's python3-torch (the same LibTorch 1.13 build as the engine):

    /usr/bin/python3 tests/bench/bench_model_torch.py --scale n --imgsz 320 --batch 8 --threads 2
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.25, 512)}


class ConvBnAct(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class Block(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.cv1, self.cv2, self.add = ConvBnAct(c, c, 3), ConvBnAct(c, c, 3), shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class CSP2(nn.Module):  # C2f
    def __init__(self, c1, c2, n, shortcut):
        super().__init__()
        self.c = c2 // 2
        self.cv1 = ConvBnAct(c1, 2 * self.c)
        self.cv2 = ConvBnAct((2 + n) * self.c, c2)
        self.m = nn.ModuleList(Block(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        ys = list(self.cv1(x).chunk(2, 1))
        for b in self.m:
            ys.append(b(ys[-1]))
        return self.cv2(torch.cat(ys, 1))


class PoolPyramid(nn.Module):  # SPPF
    def __init__(self, c1, c2, k=5):
        super().__init__()
        self.cv1, self.cv2, self.k = ConvBnAct(c1, c1 // 2), ConvBnAct(c1 // 2 * 4, c2), k

    def forward(self, x):
        ys = [self.cv1(x)]
        for _ in range(3):
            ys.append(F.max_pool2d(ys[-1], self.k, 1, self.k // 2))
        return self.cv2(torch.cat(ys, 1))


class Head(nn.Module):
    def __init__(self, nc, chs):
        super().__init__()
        c2, c3 = max(16, chs[0] // 4, 64), max(chs[0], min(nc, 100))
        self.box = nn.ModuleList(nn.Sequential(ConvBnAct(c, c2, 3), ConvBnAct(c2, c2, 3), nn.Conv2d(c2, 64, 1)) for c in chs)
        self.cls = nn.ModuleList(nn.Sequential(ConvBnAct(c, c3, 3), ConvBnAct(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for c in chs)

    def forward(self, xs):
        return [torch.cat((b(x), c(x)), 1) for x, b, c in zip(xs, self.box, self.cls)]


class YoloV8(nn.Module):
    def __init__(self, scale="n", nc=80):
        super().__init__()
        d, w, mc = SCALES[scale]
        ch = lambda c: int(math.ceil(min(c, mc) * w / 8) * 8)
        rep = lambda n: max(round(n * d), 1)
        self.b0, self.b1 = ConvBnAct(3, ch(64), 3, 2), ConvBnAct(ch(64), ch(128), 3, 2)
        self.b2 = CSP2(ch(128), ch(128), rep(3), True)
        self.b3, self.b4 = ConvBnAct(ch(128), ch(256), 3, 2), CSP2(ch(256), ch(256), rep(6), True)
        self.b5, self.b6 = ConvBnAct(ch(256), ch(512), 3, 2), CSP2(ch(512), ch(512), rep(6), True)
        self.b7, self.b8 = ConvBnAct(ch(512), ch(1024), 3, 2), CSP2(ch(1024), ch(1024), rep(3), True)
        self.b9 = PoolPyramid(ch(1024), ch(1024))
        self.h12 = CSP2(ch(1024) + ch(512), ch(512), rep(3), False)
        self.h15 = CSP2(ch(512) + ch(256), ch(256), rep(3), False)
        self.h16 = ConvBnAct(ch(256), ch(256), 3, 2)
        self.h18 = CSP2(ch(256) + ch(512), ch(512), rep(3), False)
        self.h19 = ConvBnAct(ch(512), ch(512), 3, 2)
        self.h21 = CSP2(ch(512) + ch(1024), ch(1024), rep(3), False)
        self.head = Head(nc, [ch(256), ch(512), ch(1024)])

    def forward(self, x):
        up = lambda t: F.interpolate(t, scale_factor=2.0, mode="nearest")
        p4 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
        p6 = self.b6(self.b5(p4))
        p9 = self.b9(self.b8(self.b7(p6)))
        p12 = self.h12(torch.cat((up(p9), p6), 1))
        p15 = self.h15(torch.cat((up(p12), p4), 1))
        p18 = self.h18(torch.cat((self.h16(p15), p12), 1))
        p21 = self.h21(torch.cat((self.h19(p18), p9), 1))
        return self.head([p15, p18, p21])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="n")
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    m = YoloV8(a.scale).train()
    # +16: the engine's model also holds the DFL's fixed projection weights (Ultralytics counts them too).
    print("parameters", sum(p.numel() for p in m.parameters()) + 16)
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
    x = torch.rand(a.batch, 3, a.imgsz, a.imgsz)
    fw, ls, bw, st, tot = [], [], [], [], []
    for i in range(a.warmup + a.iters):
        t0 = time.perf_counter()
        out = m(x)
        t1 = time.perf_counter()
        loss = sum(o.float().pow(2).mean() for o in out)
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        opt.zero_grad()
        t4 = time.perf_counter()
        if i >= a.warmup:
            for lst, v in ((fw, t1 - t0), (ls, t2 - t1), (bw, t3 - t2), (st, t4 - t3), (tot, t4 - t0)):
                lst.append(v * 1000)
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"pytorch eager {torch.__version__} yolov8{a.scale} imgsz={a.imgsz} batch={a.batch} threads={torch.get_num_threads()}")
    print(f"  forward {med(fw):9.1f} ms\n  loss    {med(ls):9.1f} ms\n  backward{med(bw):9.1f} ms\n"
          f"  step    {med(st):9.1f} ms\n  total   {med(tot):9.1f} ms   {1000 * a.batch / med(tot):.2f} images/s")


if __name__ == "__main__":
    main()
