#!/usr/bin/env python3
"""Writes seed inputs for fuzz_pt into the folder given as argument: small PyTorch-style checkpoints (zip
archives as torch.save writes them) and raw pickles, valid ones and one of each case the reader must
reject. Plain Python: the pickles are made by Python's own pickler with stand-in classes registered under
the names torch and Ultralytics use, so no torch is needed and nothing real is pickled.
With --fixtures DIR it also writes the data.pkl of every .pt in DIR (seeds only: never commit them)."""
import collections
import io
import os
import pickle
import struct
import sys
import types
import zipfile


def module(name):
    parts = name.split(".")
    for i in range(1, len(parts)):  # the pickler imports the module: its parents must exist too
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    m = sys.modules.get(name) or types.ModuleType(name)
    sys.modules[name] = m
    return m


def klass(mod, name, base=object):
    if hasattr(module(mod), name):  # one class per name: the pickler checks it is the importable one
        return getattr(module(mod), name)
    c = type(name, (base,), {"__module__": mod})
    c.__qualname__ = name
    setattr(module(mod), name, c)
    return c


def func(mod, name):
    def f(*a):
        return a
    f.__module__, f.__name__, f.__qualname__ = mod, name, name
    setattr(module(mod), name, f)
    return f


HalfStorage = klass("torch", "HalfStorage")
FloatStorage = klass("torch", "FloatStorage")
LongStorage = klass("torch", "LongStorage")
rebuild_tensor_v2 = func("torch._utils", "_rebuild_tensor_v2")
rebuild_parameter = func("torch._utils", "_rebuild_parameter")
DetectionModel = klass("ultralytics.nn.tasks", "DetectionModel")
Conv2d = klass("torch.nn.modules.conv", "Conv2d")
Namespace = klass("types", "SimpleNamespace")
SIZES = {HalfStorage: 2, FloatStorage: 4, LongStorage: 8}


class Storage:
    def __init__(self, kind, key, numel):
        self.kind, self.key, self.numel = kind, key, numel


class Tensor:
    def __init__(self, storage, offset, size, stride, param=False):
        self.args = (storage, offset, tuple(size), tuple(stride), False, collections.OrderedDict())
        self.param = param

    def __reduce__(self):
        inner = (rebuild_tensor_v2, self.args)
        if not self.param:
            return inner
        return (rebuild_parameter, (_Call(*inner), True, collections.OrderedDict()))


class _Call:
    """Pickles as func(*args) (REDUCE), like a tensor inside _rebuild_parameter."""

    def __init__(self, f, args):
        self.f, self.args = f, args

    def __reduce__(self):
        return (self.f, self.args)


def Module(cls, params, buffers, children, extra=None):
    """An instance of the stand-in class whose __dict__ is a torch.nn.Module's: pickled as NEWOBJ + BUILD."""
    m = cls.__new__(cls)
    m.__dict__.update({"training": False, "_parameters": collections.OrderedDict(params),
                       "_buffers": collections.OrderedDict(buffers), "_non_persistent_buffers_set": set(),
                       "_modules": collections.OrderedDict(children)})
    m.__dict__.update(extra or {})
    return m


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", obj.kind, obj.key, "cpu", obj.numel)
        return None


def dumps(obj):
    buf = io.BytesIO()
    Pickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def archive(pkl, storages, name="archive", extra=None, drop_key=None, short_key=None):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(name + "/data.pkl", pkl)
        z.writestr(name + "/byteorder", "little")
        for s in storages:
            if s.key == drop_key:
                continue
            n = s.numel * SIZES[s.kind] - (1 if s.key == short_key else 0)
            z.writestr(name + "/data/" + s.key, bytes((i * 7 + 3) % 256 for i in range(n)))
        for k, v in (extra or {}).items():
            z.writestr(name + "/" + k, v)
        z.writestr(name + "/version", "3\n")
    return buf.getvalue()


def checkpoint():
    w = Storage(HalfStorage, "0", 2 * 3 * 3 * 3)
    b = Storage(FloatStorage, "1", 4)
    n = Storage(LongStorage, "2", 1)
    conv = Module(Conv2d, [("weight", Tensor(w, 0, [2, 3, 3, 3], [27, 9, 3, 1], True)),
                           ("bias", Tensor(b, 1, [2], [2], True))],  # strided view of a shared storage
                  [("num_batches_tracked", Tensor(n, 0, [], []))], [])
    seq = Module(klass("torch.nn.modules.container", "Sequential"), [], [], [("0", conv), ("1", None)])
    model = Module(DetectionModel, [], [], [("model", seq)],
                   {"names": {0: "a", 1: "b"}, "nc": 2,
                    "yaml": {"nc": 2, "scale": "n", "backbone": [[-1, 1, "Conv", [64, 3, 2]]], "head": []}})
    ckpt = {"date": "2026-01-01", "version": "8.3.253", "epoch": -1, "model": model, "ema": None,
            "train_args": {"imgsz": 128, "data": b"bytes", "f": 0.5, "t": (1, True, None), "big": 2 ** 40}}
    return ckpt, [w, b, n]


def checkpoint84():
    """Ultralytics 8.4's module shapes in miniature (issue 32): an SPPF whose cv1 has nn.Identity as its
    activation, a C3k2 whose block is Sequential(Bottleneck, PSABlock), and an end-to-end Detect with no DFL
    (nn.Identity) and one2one_cv2/one2one_cv3 branches. One shared storage keeps it small."""
    st = Storage(FloatStorage, "0", 8)
    blk = "ultralytics.nn.modules.block"
    cont = "torch.nn.modules.container"

    def conv(act):
        c2d = Module(Conv2d, [("weight", Tensor(st, 0, [2, 2, 1, 1], [2, 1, 1, 1], True))], [], [])
        a = Module(klass("torch.nn.modules.linear", "Identity") if act == "Identity"
                   else klass("torch.nn.modules.activation", act), [], [], [])
        return Module(klass("ultralytics.nn.modules.conv", "Conv"), [], [], [("conv", c2d), ("act", a)])

    sppf = Module(klass(blk, "SPPF"), [], [], [("cv1", conv("Identity")), ("cv2", conv("SiLU"))],
                  {"n": 3, "add": True})
    bottleneck = Module(klass(blk, "Bottleneck"), [], [], [("cv1", conv("SiLU")), ("cv2", conv("SiLU"))])
    psa = Module(klass(blk, "PSABlock"), [], [], [("ffn", Module(klass(cont, "Sequential"), [], [],
                                                                   [("1", conv("Identity"))]))])
    pair = Module(klass(cont, "Sequential"), [], [], [("0", bottleneck), ("1", psa)])
    c3k2 = Module(klass(blk, "C3k2"), [], [], [("cv1", conv("SiLU")),
                                               ("m", Module(klass(cont, "ModuleList"), [], [], [("0", pair)]))])

    def branches():
        return Module(klass(cont, "ModuleList"), [], [], [("0", Module(klass(cont, "Sequential"), [], [],
                                                                         [("0", conv("SiLU"))]))])

    detect = Module(klass("ultralytics.nn.modules.head", "Detect"), [], [],
                    [("cv2", branches()), ("cv3", branches()),
                     ("dfl", Module(klass("torch.nn.modules.linear", "Identity"), [], [], [])),
                     ("one2one_cv2", branches()), ("one2one_cv3", branches())],
                    {"reg_max": 1, "end2end": True, "max_det": 300})
    seq = Module(klass(cont, "Sequential"), [], [], [("0", sppf), ("1", c3k2), ("2", detect)])
    model = Module(DetectionModel, [], [], [("model", seq)],
                   {"names": {0: "a"}, "nc": 1,
                    "yaml": {"nc": 1, "end2end": True, "reg_max": 1, "scale": "n",
                             "backbone": [[-1, 1, "SPPF", [64, 5, 3, True]]],
                             "head": [[-1, 1, "C3k2", [64, True, 0.5, True]], [[1], 1, "Detect", ["nc"]]]}})
    return {"date": "2026-05-20", "version": "8.4.52", "epoch": -1, "model": None, "ema": model}, [st]


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    ckpt, storages = checkpoint()
    pkl = dumps(ckpt)
    write(out, "ckpt.pkl", pkl)
    write(out, "ckpt.pt", archive(pkl, storages))
    sd = collections.OrderedDict([("a.weight", ckpt["model"]._modules["model"]._modules["0"]
                                   ._parameters["weight"])])
    write(out, "state_dict.pt", archive(dumps(sd), storages[:1]))
    write(out, "data.pkl", dumps({"list": [1, 2.5, "x", None, True], "set": {1, 2}, "neg": -5, "long": -2 ** 70}))
    write(out, "missing_storage.pt", archive(pkl, storages, drop_key="1"))
    write(out, "short_storage.pt", archive(pkl, storages, short_key="0"))
    write(out, "torchscript.pt", archive(pkl, storages, extra={"constants.pkl": dumps(()), "code/m.py": "x"}))
    write(out, "truncated.pt", archive(pkl, storages)[:-30])
    write(out, "not_checkpoint.pt", archive(dumps([1, 2, 3]), []))
    write(out, "os_system.pkl", b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00lsq\x00\x85R.")
    ckpt84, storages84 = checkpoint84()
    pkl84 = dumps(ckpt84)
    write(out, "ckpt84.pkl", pkl84)
    write(out, "ckpt84.pt", archive(pkl84, storages84))
    write(out, "proto4.pkl", pickle.dumps({"a": [1, 2], "b": frozenset({3})}, protocol=4))
    if len(sys.argv) > 3 and sys.argv[2] == "--fixtures":
        for f in sorted(os.listdir(sys.argv[3])):
            if f.endswith(".pt"):
                with zipfile.ZipFile(os.path.join(sys.argv[3], f)) as z:
                    pkl_name = next(n for n in z.namelist() if n.endswith("/data.pkl"))
                    write(out, "fixture-" + f[:-3] + ".pkl", z.read(pkl_name))


if __name__ == "__main__":
    main()
