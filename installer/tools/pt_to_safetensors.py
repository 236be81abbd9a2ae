#!/usr/bin/env python3
"""Convert an Ultralytics YOLO checkpoint (.pt) to a YOLO Workbench weights file (.safetensors).

Usage:
    python3 pt_to_safetensors.py yolov8n.pt                  # writes yolov8n.safetensors
    python3 pt_to_safetensors.py yolov8n.pt -o out.safetensors --half
    python3 pt_to_safetensors.py best.pt --trust             # checkpoints that pickle model classes

What it writes: the checkpoint's EMA model (or its model when there is no EMA) as a state dict with the
Ultralytics key names (model.0.conv.weight, ..., BatchNorm running statistics included), floating-point
tensors as F32 (F16 with --half), integer buffers unchanged, in state-dict order, plus the metadata the
workbench reads: format "ywb-weights/1", names (JSON array), nc, imgsz, yaml (the model configuration as
JSON text, which is valid YAML), args (training arguments as JSON) and source.

Needs only PyTorch (numpy speeds it up when present); the `safetensors` package is not required: the
file format (8-byte little-endian header length, JSON header padded with spaces to 8-byte alignment,
raw little-endian data) is written here directly. The workbench itself never needs Python.

Safety: a .pt file is a Python pickle. The script first loads it with torch.load(weights_only=True), which
cannot run code. Ultralytics checkpoints usually pickle their model classes, which that refuses; then
re-run with --trust (only for files you trust; needs the `ultralytics` package importable).
"""

import argparse
import json
import os
import struct
import sys
from collections import OrderedDict

import torch

FORMAT = "ywb-weights/1"

# torch dtype -> safetensors dtype name
DTYPES = {
    torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def load_checkpoint(path, trust):
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:  # PyTorch older than 1.13 has no weights_only
        if not trust:
            sys.exit("error: this PyTorch cannot load safely (no weights_only); re-run with --trust for files you trust")
    except Exception as e:  # pickled classes are refused by weights_only=True
        if not trust:
            sys.exit(f"error: {path} pickles Python objects ({type(e).__name__}), which a safe load refuses.\n"
                     "If you trust this file, re-run with --trust (the ultralytics package must be importable).")
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except (ModuleNotFoundError, AttributeError) as e:
        sys.exit(f"error: cannot unpickle {path}: {e}\nInstall the package that defined its classes "
                 "(for Ultralytics checkpoints: pip install ultralytics) and run again.")


def pick_model(ckpt):
    """Returns (state_dict, model_or_None, checkpoint_dict)."""
    if isinstance(ckpt, torch.nn.Module):
        return ckpt.state_dict(), ckpt, {}
    if not isinstance(ckpt, dict):
        sys.exit(f"error: unexpected checkpoint content {type(ckpt).__name__}")
    if all(isinstance(v, torch.Tensor) for v in ckpt.values()):
        return ckpt, None, {}  # already a bare state dict
    model = ckpt.get("ema") or ckpt.get("model")
    if model is None:
        sys.exit("error: the checkpoint has neither 'ema' nor 'model'")
    if isinstance(model, torch.nn.Module):
        return model.float().state_dict(), model, ckpt
    if isinstance(model, dict):
        return model, None, ckpt
    sys.exit(f"error: unexpected model object {type(model).__name__}")


def class_names(model, args):
    if args.names:
        return [n.strip() for n in args.names.split(",")]
    names = getattr(model, "names", None) if model is not None else None
    if isinstance(names, dict):
        return [names[k] for k in sorted(names)]
    return list(names) if names else []


def metadata_for(model, ckpt, args):
    names = class_names(model, args)
    model_yaml = getattr(model, "yaml", None) if model is not None else None
    nc = args.nc or (model_yaml or {}).get("nc") or len(names)
    train_args = ckpt.get("train_args") or {}
    meta = OrderedDict()
    meta["format"] = FORMAT
    meta["names"] = json.dumps(names)
    if nc:
        meta["nc"] = str(int(nc))
    meta["imgsz"] = str(int(args.imgsz or train_args.get("imgsz") or 640))
    if model_yaml:
        meta["yaml"] = json.dumps(model_yaml, default=str)  # JSON is valid YAML
    if train_args:
        meta["args"] = json.dumps(train_args, default=str)
    meta["source"] = args.input
    return meta


def tensor_bytes(t):
    flat = t.contiguous().reshape(-1).view(torch.uint8)
    try:
        return flat.numpy().tobytes()
    except Exception:  # PyTorch built without numpy
        return bytes(flat.tolist())


def write_safetensors(path, tensors, metadata):
    if sys.byteorder != "little":
        sys.exit("error: safetensors data is little-endian; run this on a little-endian machine")
    header = OrderedDict()
    if metadata:
        header["__metadata__"] = metadata
    offset = 0
    for name, t in tensors.items():
        if t.dtype not in DTYPES:
            sys.exit(f"error: tensor {name} has dtype {t.dtype}, which safetensors cannot hold")
        size = t.numel() * t.element_size()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)  # the data section starts 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for t in tensors.values():
            f.write(tensor_bytes(t))
    os.replace(tmp, path)  # atomic: never a half-written weights file
    return offset


def main():
    ap = argparse.ArgumentParser(description="Convert an Ultralytics .pt checkpoint to workbench safetensors.")
    ap.add_argument("input", help="Ultralytics checkpoint (.pt)")
    ap.add_argument("-o", "--output", help="output .safetensors (default: input with .safetensors)")
    ap.add_argument("--half", action="store_true", help="store floating-point tensors as F16 instead of F32")
    ap.add_argument("--trust", action="store_true", help="allow full unpickling (only for files you trust)")
    ap.add_argument("--names", help="comma-separated class names (override / for bare state dicts)")
    ap.add_argument("--nc", type=int, help="class count (override)")
    ap.add_argument("--imgsz", type=int, help="image size (override; default from train_args or 640)")
    args = ap.parse_args()
    out = args.output or (args.input[:-3] if args.input.endswith(".pt") else args.input) + ".safetensors"

    sd, model, ckpt = pick_model(load_checkpoint(args.input, args.trust))
    dtype = torch.float16 if args.half else torch.float32
    tensors = OrderedDict()
    for name, t in sd.items():
        t = t.detach().cpu()
        tensors[name] = t.to(dtype) if t.is_floating_point() else t
    meta = metadata_for(model, ckpt, args)
    size = write_safetensors(out, tensors, meta)
    print(f"{out}: {len(tensors)} tensors, {size / 1e6:.1f} MB of data, nc={meta.get('nc', '?')}")


if __name__ == "__main__":
    main()
