"""Seeded damage to files Lamina wrote: byte-level mutators for every format and, for a
``.keras`` zip, rewrites of its entries (config.json JSON mutations, duplicated entries,
wrong CRCs). Every mutator takes the file's bytes and a ``random.Random`` and returns the
damaged bytes and a short description for the failure report."""
import json
import random
import struct
import zipfile
import io


def truncate(data: bytes, rng: random.Random):
    cut = rng.randrange(0, len(data))
    return data[:cut], f"truncate at {cut} of {len(data)}"


def flip_bytes(data: bytes, rng: random.Random):
    out = bytearray(data)
    count = rng.choice((1, 1, 2, 8))
    where = [rng.randrange(len(out)) for _ in range(count)]
    for i in where:
        out[i] = rng.randrange(256) if out[i] != 0 else rng.randrange(1, 256)
    return bytes(out), f"set random bytes at {where}"


def flip_bit(data: bytes, rng: random.Random):
    out = bytearray(data)
    i, bit = rng.randrange(len(out)), rng.randrange(8)
    out[i] ^= 1 << bit
    return bytes(out), f"flip bit {bit} of byte {i}"


def flip_header(data: bytes, rng: random.Random):
    """A bit in the first 2 kB: HDF5's superblock and root structures, the zip's first
    local header."""
    out = bytearray(data)
    i, bit = rng.randrange(min(2048, len(out))), rng.randrange(8)
    out[i] ^= 1 << bit
    return bytes(out), f"flip bit {bit} of header byte {i}"


def zero_block(data: bytes, rng: random.Random):
    out = bytearray(data)
    size = rng.choice((8, 64, 512, 4096))
    start = rng.randrange(len(out))
    end = min(len(out), start + size)
    out[start:end] = bytes(end - start)
    return bytes(out), f"zero bytes {start}:{end}"


BYTE_MUTATORS = (truncate, flip_bytes, flip_bit, flip_header, zero_block)


# ---------------------------------------------------------------------- .keras entries
def _entries(data: bytes) -> list:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def _zip(entries) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, payload in entries:
            zf.writestr(name, payload)
    return buffer.getvalue()


def _paths(node, prefix=()):
    """Every (container, key) path of a JSON value."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield prefix + (i,)
            yield from _paths(value, prefix + (i,))


def _parent(root, path):
    for key in path[:-1]:
        root = root[key]
    return root


_REPLACEMENTS = (None, True, -1, 0, 1e308, 10 ** 30, -10 ** 30, 1.5, "x", "", [], {},
                 [1, 2], {"class_name": "Dense"}, float("nan"), 2 ** 63)
_CLASS_NAMES = ("Conv7D", "Model", "Sequential", "Functional", "Dense", "LSTM", "__init__",
                "os.system", "", "InputLayer", "BatchNormalization")


def mutate_config(data: bytes, rng: random.Random):
    entries = _entries(data)
    names = [name for name, _ in entries]
    i = names.index("config.json")
    config = json.loads(entries[i][1])
    paths = list(_paths(config))
    kind = rng.choice(("drop", "retype", "retype", "class", "nest", "huge_shape"))
    if kind == "class":
        paths = [p for p in paths if p[-1] == "class_name"]
    elif kind == "huge_shape":
        paths = [p for p in paths if p[-1] in ("units", "filters", "kernel_size", "shape",
                                                "batch_shape", "input_shape", "axis")]
    path = rng.choice(paths)
    parent = _parent(config, path)
    key = path[-1]
    if kind == "drop":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
        what = "drop"
    elif kind == "retype":
        parent[key] = rng.choice(_REPLACEMENTS)
        what = f"set to {parent[key]!r}"
    elif kind == "class":
        parent[key] = rng.choice(_CLASS_NAMES)
        what = f"class_name {parent[key]!r}"
    elif kind == "huge_shape":
        parent[key] = rng.choice((10 ** 12, 2 ** 40, -5, 0, [10 ** 9, 10 ** 9],
                                  [None, -1], 2.5))
        what = f"set to {parent[key]!r}"
    else:
        depth = rng.choice((100, 600, 5000))
        nested = 1
        for _ in range(depth):
            nested = [nested]
        parent[key] = nested
        what = f"nest {depth} deep"
    raw = json.dumps(config, allow_nan=True).encode()
    entries[i] = ("config.json", raw)
    return _zip(entries), f"config.json {kind} at {list(path)}: {what}"


def duplicate_entry(data: bytes, rng: random.Random):
    entries = _entries(data)
    name, payload = rng.choice(entries)
    entries.append((name, payload[: len(payload) // 2] if rng.random() < 0.5 else payload))
    return _zip(entries), f"duplicate entry {name!r}"


def drop_entry(data: bytes, rng: random.Random):
    entries = _entries(data)
    entries.pop(rng.randrange(len(entries)))
    return _zip(entries), "drop an entry"


def wrong_crc(data: bytes, rng: random.Random):
    """Change a CRC-32 in a local header or the central directory, data left intact."""
    out = bytearray(data)
    spots = []
    start = 0
    while True:
        at = out.find(b"PK\x03\x04", start)
        if at < 0:
            break
        spots.append(at + 14)
        start = at + 4
    start = 0
    while True:
        at = out.find(b"PK\x01\x02", start)
        if at < 0:
            break
        spots.append(at + 16)
        start = at + 4
    spot = rng.choice(spots)
    crc = struct.unpack_from("<I", out, spot)[0]
    struct.pack_into("<I", out, spot, crc ^ (1 << rng.randrange(32)))
    return bytes(out), f"wrong CRC at byte {spot}"


def weights_entry_bytes(data: bytes, rng: random.Random):
    """Damage the bytes of model.weights.h5 inside the zip and store it with a CRC that
    matches the damaged bytes (a writer that damaged the weights before zipping)."""
    entries = _entries(data)
    names = [name for name, _ in entries]
    i = names.index("model.weights.h5")
    damaged, what = rng.choice((flip_bit, flip_bytes, zero_block, truncate))(entries[i][1],
                                                                           rng)
    entries[i] = ("model.weights.h5", damaged)
    return _zip(entries), f"model.weights.h5 re-zipped after {what}"


ZIP_MUTATORS = (mutate_config, mutate_config, mutate_config, duplicate_entry, drop_entry,
                wrong_crc, weights_entry_bytes, weights_entry_bytes)
