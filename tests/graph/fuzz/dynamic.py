"""Random op programs on inputs of unknown sizes, and the image layers on dict inputs
with bounding boxes: a seed -> source defining ``program(*inputs)``, ``SYMBOLIC`` (the
``Input`` batch shapes, ``None`` for unknown sizes), ``RUNS`` (concrete shapes, two runs
of other sizes) and ``DTYPES``.

Families (``FAMILIES``): ``image`` (resize of unknown height/width with crop or pad to the
aspect ratio, the Resizing layer, pad_images to a target that may be too small,
elastic_transform of an unknown batch), ``signal`` (extract_sequences of an unknown
number of samples, stft then istft whose frames and batch are unknown, ``length`` that may
exceed the signal), ``scatter`` (scatter_update with one unknown size, rows that may be
out of range), ``map`` (map_coordinates of an image of unknown sizes), ``refused``
(results Keras's shape rules accept but no backend computes: ``refuse_when_run``) and
``boxes`` (RandomFlip, RandomTranslation, RandomZoom, Resizing, CenterCrop, ... with
``bounding_box_format`` on {"images", "bounding_boxes": {"boxes", "labels"}}, training
mode). The checker is ``dynamic_checks.check_dynamic``.
"""
from __future__ import annotations

import random

FAMILIES = ["image", "image", "signal", "scatter", "map", "refused", "boxes", "boxes"]
FLOAT_TAIL = ["ops.tanh({h}) * 0.5", "{h} * 2.0 - 1.0", "ops.square({h}) + {h}",
              "ops.sigmoid({h})"]


def generate(seed: int) -> str:
    r = random.Random(seed)
    family = FAMILIES[seed % len(FAMILIES)] if seed < 2 * len(FAMILIES) else \
        r.choice(FAMILIES)
    symbolic, runs, dtypes, body, grad = globals()[f"_{family}"](r)
    args = ", ".join(f"x{i}" for i in range(len(symbolic)))
    lines = ["import numpy as np", "import lamina", "from lamina import layers, ops", "",
             f"# unknown-size program, seed {seed}: {family}",
             f"SYMBOLIC = {symbolic!r}", f"RUNS = {runs!r}", f"DTYPES = {dtypes!r}",
             f"GRADIENT = {grad!r}", "", "", f"def program({args}):"]
    lines += [f"    {line}" for line in body]
    return "\n".join(lines) + "\n"


def _tail(r, body, h="h"):
    if r.random() < 0.5:
        body.append(f"{h} = {r.choice(FLOAT_TAIL).format(h=h)}")
    return body


def _image(r):
    c = r.randint(1, 3)
    batch = r.choice([None, None, 2])
    sizes = [(r.randint(1, 7), r.randint(1, 7)) for _ in range(2)]
    runs = [[(batch or r.randint(1, 3), h, w, c)] for h, w in sizes]
    symbolic = [(batch, None, None, c)]
    height, width = r.randint(1, 6), r.randint(1, 6)
    roll = r.random()
    channels_first = r.random() < 0.25
    x = "ops.transpose(x0, (0, 3, 1, 2))" if channels_first else "x0"
    fmt = ", data_format='channels_first'" if channels_first else ""
    grad = True
    if roll < 0.45:
        method = r.choice(["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5", "area"])
        aspect = r.choice(["", ", crop_to_aspect_ratio=True",
                           f", pad_to_aspect_ratio=True, fill_value={r.choice([0.0, -1.5])}"])
        body = [f"h = ops.image.resize({x}, ({height}, {width}), interpolation={method!r}, "
                f"antialias={r.random() < 0.4}{aspect}{fmt})"]
    elif roll < 0.7:
        if r.random() < 0.6:    # known sizes: the layer refuses unknown ones (KNOWN_DYNAMIC)
            runs = [[(run[0][0], *sizes[0], c)] for run in runs]
            symbolic = [(batch, *sizes[0], c)]
        method = r.choice(["bilinear", "nearest", "bicubic"])
        aspect = r.choice(["", ", crop_to_aspect_ratio=True", ", pad_to_aspect_ratio=True"])
        body = [f"h = layers.Resizing({height}, {width}, interpolation={method!r}"
                f"{aspect}{fmt})({x})"]
    else:
        top, left = r.randint(0, 2), r.randint(0, 2)
        biggest = max(max(s[0] for s in sizes) + top, max(s[1] for s in sizes) + left)
        target_h = r.randint(biggest - 2, biggest + 2)     # sometimes too small: an error
        target_w = r.randint(biggest - 2, biggest + 2)
        sides = r.choice([f"top_padding={top}, left_padding={left}",
                          f"bottom_padding={top}, right_padding={left}"])
        body = [f"h = ops.image.pad_images({x}, {sides}, target_height={target_h}, "
                f"target_width={target_w}{fmt})"]
    if channels_first:
        body.append("h = ops.transpose(h, (0, 2, 3, 1))")
    if r.random() < 0.35 and "pad_images" not in body[0]:
        body.append(f"h = ops.image.elastic_transform(h, {r.choice([2.0, 5.0])}, "
                    f"{r.choice([0.5, 1.0])}, interpolation={r.choice(['bilinear', 'nearest'])!r}"
                    f", seed={r.randint(0, 9)})")
    _tail(r, body)
    return symbolic, runs, ["float32"], body + ["return [h]"], grad


def _signal(r):
    batch = r.choice([None, None, 3])
    roll = r.random()
    if roll < 0.4:
        length, stride = r.randint(1, 5), r.randint(1, 3)
        runs = [[(batch or r.randint(1, 3), r.randint(1, 12))] for _ in range(2)]
        body = [f"h = ops.extract_sequences(x0, {length}, {stride})"]
        return [(batch, None)], runs, ["float32"], _tail(r, body) + ["return [h]"], True
    seq = r.choice([4, 8])
    stride, fft = seq // 2, r.choice([seq, 2 * seq])
    center = r.random() < 0.6
    if roll < 0.75:
        runs = [[(batch or r.randint(1, 3), r.randint(seq + 1, 24))] for _ in range(2)]
        samples = None
        if center and r.random() < 0.8:   # a reflect pad needs the size (KNOWN_DYNAMIC)
            samples = runs[0][0][1]
            runs = [[(run[0][0], samples)] for run in runs]
        least = min(run[0][1] for run in runs)
        length = r.choice(["None", str(r.randint(1, least)), str(least + 6)])
        body = [f"real, imag = ops.stft(x0, {seq}, {stride}, {fft}, center={center})",
                f"h = ops.istft((real, imag), {seq}, {stride}, {fft}, length={length}, "
                f"center={center})"]
        return [(batch, samples)], runs, ["float32"], _tail(r, body) + ["return [h]"], True
    bins = fft // 2 + 1
    lead = [(batch, None, bins)] * 2
    runs = [[(n, f, bins)] * 2 for n, f in
            ((batch or r.randint(1, 3), r.randint(1, 6)) for _ in range(2))]
    body = [f"h = ops.istft((x0, x1), {seq}, {stride}, {fft}, center=False)"]
    return lead, runs, ["float32"] * 2, _tail(r, body) + ["return [h]"], True


def _scatter(r):
    known = r.randint(1, 3)
    rank = r.choice([1, 2])
    unknown = r.randrange(rank + 1)
    symbolic = tuple(None if a == unknown else known for a in range(rank + 1))
    runs = [[tuple(r.randint(1, 4) if a == unknown else known for a in range(rank + 1))]
            for _ in range(2)]
    k = r.randint(1, rank + 1)
    smallest = [min(run[0][a] for run in runs) for a in range(k)]
    rows = [[r.randint(-s, s - 1 + (r.random() < 0.1)) for s in smallest]
            for _ in range(r.randint(1, 3))]            # one in ten columns may be too big
    update_shape = (len(rows),) + tuple(known for _ in range(rank + 1 - k))
    reduction = r.choice(["None", "'add'", "'max'", "'min'", "'mul'"])
    body = [f"u = ops.reshape(ops.arange({_prod(update_shape)}, dtype='float32') * 0.25 - 1.0,"
            f" {update_shape!r})",
            f"h = ops.scatter_update(x0, np.array({rows!r}, 'int32'), u, "
            f"reduction={reduction})"]
    return [symbolic], runs, ["float32"], _tail(r, body) + ["return [h]"], True


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _map(r):
    rank = r.choice([1, 2, 3])
    symbolic = tuple(None for _ in range(rank))
    points = (r.randint(1, 3), r.randint(1, 3))
    runs = [[tuple(r.randint(1, 5) for _ in range(rank)), (rank, *points)] for _ in range(2)]
    order = r.choice([0, 1])
    mode = r.choice(["constant", "nearest", "wrap", "mirror", "reflect"])
    body = [f"c = x1 * 3.0 + 1.0",
            f"h = ops.image.map_coordinates(x0, c, {order}, fill_mode={mode!r}, "
            f"fill_value={r.choice([0.0, -1.0])})"]
    return [symbolic, (rank, *points)], runs, ["float32"] * 2, \
        _tail(r, body) + ["return [h]"], True


# Keras's symbolic shape rules accept these; running them raises the eager error.
REFUSED = [
    "ops.psnr(x0, ops.transpose(x0, (0, 2, 1)), 1.0)",
    "ops.polar(x0, ops.transpose(x0, (0, 2, 1)))",
    "ops.slice(x0, ops.cast(ops.sum(x0, axis=(1, 2))[:3] * 0, 'int32'), (-1, 1, 1))",
    "ops.scatter(ops.reshape(x0[:1, :1, :1], (1, 1)), x0[0, 0, :1], (3, 3))",
    "ops.slice_update(x0, ops.sum(x0, axis=(1, 2))[:3] * 0, x0[:1, :1, :1])",
    "ops.while_loop(lambda a: a < 10, lambda a: a + 1, x0)",
]


def _refused(r):
    a, b = r.randint(2, 4), r.randint(2, 4)
    if a == b:
        b += 1
    batch = r.choice([None, 3])
    runs = [[(batch or r.randint(3, 4), a, b)] for _ in range(2)]
    body = [f"h = {r.choice(REFUSED)}", "return [h]"]
    return [(batch, a, b)], runs, ["float32"], body, False


BOX_LAYERS = [
    "layers.RandomFlip({mode!r}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.RandomTranslation({f}, {g}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.RandomZoom({f}, {g}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.Resizing({h}, {w}, crop_to_aspect_ratio={crop}, bounding_box_format={fmt!r})",
    "layers.Resizing({h}, {w}, pad_to_aspect_ratio={crop}, bounding_box_format={fmt!r})",
    "layers.CenterCrop({h}, {w}, bounding_box_format={fmt!r})",
    "layers.RandomRotation({f}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.RandomShear({f}, {g}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.RandomPerspective(scale={f}, seed={seed}, bounding_box_format={fmt!r})",
    "layers.RandomBrightness({f}, value_range=(0, 1), seed={seed}, "
    "bounding_box_format={fmt!r})",
]


def _boxes(r):
    height, width, boxes = r.randint(4, 10), r.randint(4, 10), r.randint(1, 3)
    batch = r.choice([None, 2])
    fmt = r.choice(["xyxy", "xyxy", "yxyx", "rel_xyxy", "xywh", "center_xywh"])
    runs = [[(batch or r.randint(1, 3), height, width, 3), (batch or 2, boxes, 4),
             (batch or 2, boxes)] for _ in range(2)]
    for run in runs:
        run[1] = (run[0][0],) + run[1][1:]
        run[2] = (run[0][0],) + run[2][1:]
    made = []
    for _ in range(r.choice([1, 1, 2])):
        made.append(r.choice(BOX_LAYERS).format(
            mode=r.choice(["horizontal", "vertical", "horizontal_and_vertical"]),
            seed=r.randint(0, 9), fmt=fmt, f=r.choice([0.1, 0.3, 0.5]),
            g=r.choice([0.2, 0.4]), h=r.randint(2, height + 2), w=r.randint(2, width + 2),
            crop=r.random() < 0.5))
    body = ["d = {'images': x0, 'bounding_boxes': {'boxes': " + _box_values(fmt) +
            ", 'labels': x2}}"]
    body += [f"d = {code}(d, training=True)" for code in made]
    body.append("return [d]")
    symbolic = [(batch, height, width, 3), (batch, boxes, 4), (batch, boxes)]
    return symbolic, runs, ["float32", "float32", "int32"], body, False


def _box_values(fmt):
    """Boxes in ``fmt`` from the (0, 1) floats of x1: inside the image, positive sizes."""
    size = "ops.convert_to_tensor([x0.shape[2], x0.shape[1]], 'float32')"
    corner = f"x1[..., :2] * 0.5 * {size}"
    extent = f"(x1[..., 2:] * 0.4 + 0.1) * {size}"
    if fmt == "rel_xyxy":
        return "ops.concatenate([x1[..., :2] * 0.5, x1[..., :2] * 0.5 + x1[..., 2:] * 0.4 " \
               "+ 0.1], axis=-1)"
    if fmt == "xywh":
        return f"ops.concatenate([{corner}, {extent}], axis=-1)"
    if fmt == "center_xywh":
        return f"ops.concatenate([{corner} + {extent} * 0.5, {extent}], axis=-1)"
    xyxy = f"ops.concatenate([{corner}, {corner} + {extent}], axis=-1)"
    return xyxy if fmt == "xyxy" else f"ops.take({xyxy}, [1, 0, 3, 2], axis=-1)"  # yxyx
