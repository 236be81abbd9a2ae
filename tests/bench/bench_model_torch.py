#!/usr/bin/python3
"""Side-by-side reference for `ywb bench model loss=mse`: the same YOLOv8 or YOLO11 architecture in PyTorch
eager, same synthetic input, same loss (mean of squared head outputs), same SGD settings and timing method.
Not part of the product; run with Debian's python3-torch (the same LibTorch 1.13 build as the engine):

    /usr/bin/python3 tests/bench/bench_model_torch.py --scale n --imgsz 320 --batch 8 --threads 2
    /usr/bin/python3 tests/bench/bench_model_torch.py --family yolo11 --scale n --imgsz 320 --batch 8

On a GPU (`ywb bench model device=0 amp=true channels_last=true loss=mse` beside it):

    python3 tests/bench/bench_model_torch.py --device cuda --amp --channels-last --imgsz 640 --batch 64

Both models are written here from the published architectures (not from either implementation); the
printed parameter count is the check that they are the same networks (yolov8n 3,157,200, yolo11n 2,624,080).
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.25, 512)}
SCALES11 = {"n": (0.50, 0.25, 1024), "s": (0.50, 0.50, 1024), "m": (0.50, 1.00, 512),
            "l": (1.00, 1.00, 512), "x": (1.00, 1.50, 512)}


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


# ---- YOLO11 --------------------------------------------------------------------------------------------

class ConvBn(ConvBnAct):  # no activation
    def __init__(self, c1, c2, k=1, s=1, g=1):
        super().__init__(c1, c2, k, s)
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, groups=g, bias=False)

    def forward(self, x):
        return self.bn(self.conv(x))


class DepthwiseAct(ConvBnAct):
    def __init__(self, c, k=3):
        super().__init__(c, c, k)
        self.conv = nn.Conv2d(c, c, k, 1, k // 2, groups=c, bias=False)


class Residual2(nn.Module):  # two convs (k1, k2) with hidden width h, residual when widths match
    def __init__(self, c, h, k1=3, k2=3):
        super().__init__()
        self.a, self.b = ConvBnAct(c, h, k1), ConvBnAct(h, c, k2)

    def forward(self, x):
        return x + self.b(self.a(x))


class CSP3(nn.Module):  # C3k: two paths, the first through 2 residual 3x3 pairs at full hidden width
    def __init__(self, c):
        super().__init__()
        h = c // 2
        self.p1, self.p2, self.out = ConvBnAct(c, h), ConvBnAct(c, h), ConvBnAct(2 * h, c)
        self.m = nn.Sequential(Residual2(h, h), Residual2(h, h))

    def forward(self, x):
        return self.out(torch.cat((self.m(self.p1(x)), self.p2(x)), 1))


class CSP2k(nn.Module):  # C3k2: C2f layout, inner blocks are half-width residual pairs or CSP3 blocks
    def __init__(self, c1, c2, n, deep, e=0.5):
        super().__init__()
        self.c = int(c2 * e)
        self.cv1, self.cv2 = ConvBnAct(c1, 2 * self.c), ConvBnAct((2 + n) * self.c, c2)
        self.m = nn.ModuleList(CSP3(self.c) if deep else Residual2(self.c, self.c // 2) for _ in range(n))

    def forward(self, x):
        ys = list(self.cv1(x).chunk(2, 1))
        for b in self.m:
            ys.append(b(ys[-1]))
        return self.cv2(torch.cat(ys, 1))


class SelfAttention(nn.Module):  # multi-head attention over H*W with a depth-wise positional conv
    def __init__(self, c, heads):
        super().__init__()
        self.heads, self.hd = heads, c // heads
        self.kd = self.hd // 2
        self.qkv = ConvBn(c, c + 2 * self.kd * heads)
        self.proj, self.pe = ConvBn(c, c), ConvBn(c, c, 3, g=c)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.qkv(x).view(b, self.heads, 2 * self.kd + self.hd, h * w).split([self.kd, self.kd, self.hd], 2)
        a = torch.softmax((q.transpose(-2, -1) @ k) * self.kd ** -0.5, dim=-1)
        y = (v @ a.transpose(-2, -1)).view(b, c, h, w) + self.pe(v.reshape(b, c, h, w))
        return self.proj(y)


class AttnStage(nn.Module):  # C2PSA with n PSA blocks
    def __init__(self, c, n):
        super().__init__()
        self.h = c // 2
        self.cv1, self.cv2 = ConvBnAct(c, c), ConvBnAct(c, c)
        self.attn = nn.ModuleList(SelfAttention(self.h, self.h // 64) for _ in range(n))
        self.ffn = nn.ModuleList(nn.Sequential(ConvBnAct(self.h, 2 * self.h), ConvBn(2 * self.h, self.h)) for _ in range(n))

    def forward(self, x):
        a, b = self.cv1(x).split((self.h, self.h), 1)
        for att, ffn in zip(self.attn, self.ffn):
            b = b + att(b)
            b = b + ffn(b)
        return self.cv2(torch.cat((a, b), 1))


class Head11(Head):  # class branch: depth-wise 3x3 + point-wise 1x1, twice
    def __init__(self, nc, chs):
        super().__init__(nc, chs)
        c3 = max(chs[0], min(nc, 100))
        self.cls = nn.ModuleList(nn.Sequential(DepthwiseAct(c), ConvBnAct(c, c3), DepthwiseAct(c3), ConvBnAct(c3, c3),
                                               nn.Conv2d(c3, nc, 1)) for c in chs)


class Yolo11(nn.Module):
    def __init__(self, scale="n", nc=80):
        super().__init__()
        d, w, mc = SCALES11[scale]
        ch = lambda c: int(math.ceil(min(c, mc) * w / 8) * 8)
        n = max(round(2 * d), 1)
        deep = scale in "mlx"  # the m/l/x scales use C3k inner blocks everywhere
        self.b0, self.b1 = ConvBnAct(3, ch(64), 3, 2), ConvBnAct(ch(64), ch(128), 3, 2)
        self.b2 = CSP2k(ch(128), ch(256), n, deep, 0.25)
        self.b3 = ConvBnAct(ch(256), ch(256), 3, 2)
        self.b4 = CSP2k(ch(256), ch(512), n, deep, 0.25)
        self.b5 = ConvBnAct(ch(512), ch(512), 3, 2)
        self.b6 = CSP2k(ch(512), ch(512), n, True)
        self.b7 = ConvBnAct(ch(512), ch(1024), 3, 2)
        self.b8 = CSP2k(ch(1024), ch(1024), n, True)
        self.b9 = PoolPyramid(ch(1024), ch(1024))
        self.b10 = AttnStage(ch(1024), n)
        self.h13 = CSP2k(ch(1024) + ch(512), ch(512), n, deep)
        self.h16 = CSP2k(ch(512) + ch(512), ch(256), n, deep)
        self.h17 = ConvBnAct(ch(256), ch(256), 3, 2)
        self.h19 = CSP2k(ch(256) + ch(512), ch(512), n, deep)
        self.h20 = ConvBnAct(ch(512), ch(512), 3, 2)
        self.h22 = CSP2k(ch(512) + ch(1024), ch(1024), n, True)
        self.head = Head11(nc, [ch(256), ch(512), ch(1024)])

    def forward(self, x):
        up = lambda t: F.interpolate(t, scale_factor=2.0, mode="nearest")
        p4 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
        p6 = self.b6(self.b5(p4))
        p10 = self.b10(self.b9(self.b8(self.b7(p6))))
        p13 = self.h13(torch.cat((up(p10), p6), 1))
        p16 = self.h16(torch.cat((up(p13), p4), 1))
        p19 = self.h19(torch.cat((self.h17(p16), p13), 1))
        p22 = self.h22(torch.cat((self.h20(p19), p10), 1))
        return self.head([p16, p19, p22])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="yolov8", choices=["yolov8", "yolo11"])
    ap.add_argument("--scale", default="n")
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--amp", action="store_true", help="fp16 autocast with a gradient scaler (CUDA)")
    ap.add_argument("--channels-last", action="store_true")
    a = ap.parse_args()
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda:
        torch.backends.cudnn.benchmark = True
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    fmt = torch.channels_last if a.channels_last else torch.contiguous_format
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    m = (Yolo11 if a.family == "yolo11" else YoloV8)(a.scale).train().to(dev, memory_format=fmt)
    # +16: the engine's model also holds the DFL's fixed projection weights (Ultralytics counts them too).
    print("parameters", sum(p.numel() for p in m.parameters()) + 16)
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
    x = torch.rand(a.batch, 3, a.imgsz, a.imgsz, device=dev).contiguous(memory_format=fmt)
    scaler = torch.cuda.amp.GradScaler(enabled=a.amp and cuda)  # the 1.13-compatible spelling
    fw, ls, bw, st, tot = [], [], [], [], []
    for i in range(a.warmup + a.iters):
        sync()
        t0 = time.perf_counter()
        with torch.autocast(dev.type, dtype=torch.float16 if cuda else torch.bfloat16, enabled=a.amp):
            out = m(x)
        sync()
        t1 = time.perf_counter()
        loss = sum(o.float().pow(2).mean() for o in out)
        sync()
        t2 = time.perf_counter()
        scaler.scale(loss).backward()
        sync()
        t3 = time.perf_counter()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        sync()
        t4 = time.perf_counter()
        if i >= a.warmup:
            for lst, v in ((fw, t1 - t0), (ls, t2 - t1), (bw, t3 - t2), (st, t4 - t3), (tot, t4 - t0)):
                lst.append(v * 1000)
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"pytorch eager {torch.__version__} {a.family}{a.scale} imgsz={a.imgsz} batch={a.batch} threads={torch.get_num_threads()}"
          f" device={dev} amp={a.amp} channels_last={a.channels_last}")
    if cuda:
        print(f"  peak memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB allocated, "
              f"{torch.cuda.max_memory_reserved() / 2**20:.0f} MiB reserved")
    print(f"  forward {med(fw):9.1f} ms\n  loss    {med(ls):9.1f} ms\n  backward{med(bw):9.1f} ms\n"
          f"  step    {med(st):9.1f} ms\n  total   {med(tot):9.1f} ms   {1000 * a.batch / med(tot):.2f} images/s")


if __name__ == "__main__":
    main()
