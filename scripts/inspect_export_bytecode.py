#!/usr/bin/env python3
"""Lists what a `jax.export` serialization's MLIR bytecode holds: header (version,
producer), sections and their sizes, and the string table (dialects, `vhlo.*_vN` op names,
symbol and location names). The starting point for a bytecode reader (issue 15, item 2):

    python3 scripts/inspect_export_bytecode.py testdata/stablehlo_jax/export_mlp/exported.bin

Format: mlir.llvm.org/docs/BytecodeFormat (prefix varints; sections String, Dialect,
AttrType, AttrTypeOffset, IR, Resource, ResourceOffset, DialectVersions, Properties).
"""
import sys

NAMES = ["String", "Dialect", "AttrType", "AttrTypeOffset", "IR", "Resource",
         "ResourceOffset", "DialectVersions", "Properties"]


def varint(buf, p):
    first = buf[p]
    extra = (first & -first).bit_length() - 1 if first else 8
    if extra == 8:
        return int.from_bytes(buf[p + 1:p + 9], "little"), p + 9
    return int.from_bytes(buf[p:p + extra + 1], "little") >> (extra + 1), p + extra + 1


def main(path):
    raw = open(path, "rb").read()
    at = raw.find(b"ML\xefR")
    if at < 0:
        sys.exit(f"{path}: no MLIR bytecode")
    # Inside the flatbuffer the bytecode is a byte vector: its u32 length precedes it.
    size = int.from_bytes(raw[at - 4:at], "little") if at >= 4 else len(raw)
    data = raw[at:at + size]
    version, p = varint(data, 4)
    end = data.index(0, p)
    print(f"bytecode at {at}, {size} bytes, version {version}, producer {data[p:end].decode()}")
    p = end + 1
    sections = {}
    while p < len(data):
        sid = data[p]
        p += 1
        length, p = varint(data, p)
        if sid & 0x80:
            align, p = varint(data, p)
            while p % align:
                p += 1
        sections[NAMES[sid & 0x7F]] = data[p:p + length]
        print(f"section {NAMES[sid & 0x7F]}: {length} bytes")
        p += length
    s = sections.get("String", b"")
    count, q = varint(s, 0)
    sizes = []
    for _ in range(count):
        n, q = varint(s, q)
        sizes.append(n)
    strings = []
    for n in reversed(sizes):
        strings.append(s[q:q + n - 1].decode(errors="replace"))
        q += n
    print(f"{len(strings)} strings:", strings)


if __name__ == "__main__":
    main(sys.argv[1])
