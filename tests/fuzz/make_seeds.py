#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the safetensors fuzz corpus (valid files and one of each bad
case the parser must reject) into the folder given as argument. Plain Python, no torch needed."""
import json
import os
import struct
import sys

SIZES = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


def file_from(header_text, data):
    return struct.pack("<Q", len(header_text)) + header_text + data


def valid(tensors, metadata=None, pad=True):
    header, off, data = {}, 0, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = SIZES[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}
        data += bytes((i * 37 + 1) % 2 if dtype == "BOOL" else (i * 37 + 11) % 256 for i in range(n))
        off += n
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    return file_from(text, data)


def raw(header, data_len):
    return file_from(header.encode("utf-8", "surrogatepass"), b"\x01" * data_len)


def main(out):
    os.makedirs(out, exist_ok=True)
    seeds = {
        "valid_empty": valid([]),
        "valid_meta_only": valid([], {"format": "ywb-weights/1", "nc": "80"}),
        "valid_all_dtypes": valid([(f"t.{d}", d, [2, 3]) for d in SIZES], {"names": "[\"a\",\"b\"]"}),
        "valid_scalar_and_empty": valid([("s", "F32", []), ("e", "I64", [0, 4]), ("b", "BOOL", [3])]),
        "valid_yolo_like": valid([("model.0.conv.weight", "F32", [4, 3, 3, 3]), ("model.0.bn.weight", "F32", [4]),
                                  ("model.0.bn.num_batches_tracked", "I64", [])], {"format": "ywb-weights/1"}),
        "valid_unpadded": valid([("x", "U8", [5])], pad=False),
        "bad_empty": b"",
        "bad_short": b"\x10\x00\x00",
        "bad_header_len": struct.pack("<Q", 1000) + b"{}",
        "bad_json": raw('{"a": {', 0),
        "bad_not_object": raw("[1,2]", 0),
        "bad_overlap": raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                           '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', 12),
        "bad_out_of_range": raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}', 8),
        "bad_gap": raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', 12),
        "bad_trailing": raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', 9),
        "bad_dtype": raw('{"a":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}}', 8),
        "bad_length": raw('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', 8),
        "bad_overflow": raw('{"a":{"dtype":"F64","shape":[2305843009213693952,8],"data_offsets":[0,0]}}', 0),
        "bad_duplicate": raw('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                             '"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', 2),
        "bad_meta": raw('{"__metadata__":{"k":1}}', 0),
        "bad_nul": file_from(b"{}\x00\x00", b""),
        "bad_utf8": file_from(b'{"\xff":1}', b""),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "corpus-seeds")
