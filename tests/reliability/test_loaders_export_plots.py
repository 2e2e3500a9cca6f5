"""Seeded sweep of issue 23's surfaces "onnx", "loaders", "plots" and "editor" (items 5, 9
and 10), in the manner of ``test_mutation_sweep.py``: every case is handled exactly or
refused with a :class:`lamina.errors.LaminaError` within ``CASE_TIMEOUT`` seconds, and
leaves no thread, child process or file descriptor behind.

* onnx: a random recurrent model (LSTM / GRU / SimpleRNN, return_sequences, go_backwards,
  zero_output_for_mask, return_state, Bidirectional) over random masks (leading, trailing,
  interior, all-masked rows; from Embedding(mask_zero=True) or a bool mask input); handled
  = onnxruntime gives what ``predict`` gives.
* loaders: a dataset file (mnist .npz and gzipped IDX, imdb, boston_housing, CIFAR-10
  .tar.gz) damaged by a byte mutator, a size field declaring gigabytes, or a member
  swapped for a zip bomb; handled = the very same arrays as from the original.
* plots: layer and model names drawn from control, XML-invalid, record-label and quoting
  characters; handled = Lamina's SVG is well-formed XML showing the names, the DOT text
  (pydot's and Lamina's) parses, and graphviz accepts it where installed.
* editor: random HDF5 trees up to 3000 groups deep, some with a group linked twice;
  handled = KerasFileEditor reads exactly the tree written and saves it back.

``python -m tests.reliability.test_loaders_export_plots`` prints the counts per surface.
"""
import io
import os
import pickle
import random
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import threading
import traceback
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.errors import LaminaError

from . import mutators

CASE_TIMEOUT = 60
CASES = {"onnx": 24, "loaders": 60, "plots": 30, "editor": 24}
DATASET_CAP = 8 << 20                  # $LAMINA_DATASET_MAX_BYTES during the sweep


# --------------------------------------------------------------------------- onnx
def _mask_row(rng, steps):
    pattern = rng.choice(["leading", "trailing", "interior", "none", "all", "random"])
    cut = rng.randrange(steps + 1)
    if pattern == "leading":
        return [t >= cut for t in range(steps)]
    if pattern == "trailing":
        return [t < cut for t in range(steps)]
    if pattern == "interior":
        a, b = sorted(rng.randrange(steps + 1) for _ in range(2))
        return [not a <= t < b for t in range(steps)]
    if pattern == "random":
        return [rng.random() < 0.5 for _ in range(steps)]
    return [pattern == "none"] * steps


def onnx_case(seed, folder):
    from tests.export.onnx_helpers import run       # skips without onnx / onnxruntime
    rng = random.Random(f"onnx-{seed}")
    kind = rng.choice([layers.LSTM, layers.GRU, layers.SimpleRNN])
    options = dict(return_sequences=rng.random() < 0.5, go_backwards=rng.random() < 0.4,
                   zero_output_for_mask=rng.random() < 0.3)
    bidirectional = rng.random() < 0.25
    if bidirectional:                # its backward copy goes backwards (Keras refuses both)
        options["go_backwards"] = False
    elif rng.random() < 0.3:
        options["return_state"] = True
    layer = kind(rng.randint(2, 4), **options)
    layer = layers.Bidirectional(layer) if bidirectional else layer
    as_input = rng.random() < 0.25
    tokens = layers.Input((None,), dtype="int32", name="tokens")
    if as_input:
        keep = layers.Input((None,), dtype="bool", name="keep")
        out = layer(layers.Embedding(10, 3)(tokens), mask=keep)
        model = lamina.Model([tokens, keep], out)
    else:
        out = layer(layers.Embedding(10, 3, mask_zero=True)(tokens))
        model = lamina.Model(tokens, out)
    weights = np.random.default_rng(seed)
    for w in model.weights:
        w.assign(weights.normal(scale=0.7, size=w.shape).astype("float32"))
    path = os.path.join(folder, "m.onnx")
    model.export(path, format="onnx", verbose=False)
    for _ in range(2):
        batch, steps = rng.randint(1, 5), rng.randint(1, 7)
        mask = np.array([_mask_row(rng, steps) for _ in range(batch)], bool)
        data = np.where(mask, weights.integers(1, 10, mask.shape), 0).astype("int32")
        feeds = {"tokens": data, "keep": mask} if as_input else {"tokens": data}
        want = lamina.tree.flatten(model.predict(list(feeds.values()) if as_input else data,
                                                 verbose=0))
        got = run(path, names=feeds)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{kind.__name__} {options} mask {mask}")
    return "handled"


# --------------------------------------------------------------------------- loaders
def _write_datasets(folder):
    from tests.datasets import synthetic_files
    rng = np.random.default_rng(0)
    paths = {"imdb": synthetic_files.write_imdb(folder),
             "boston": synthetic_files.write_boston(folder)}
    x, y = rng.integers(0, 256, (3, 28, 28), np.uint8), rng.integers(0, 10, 3, np.uint8)
    paths["mnist_npz"] = os.path.join(folder, "mnist.npz")
    np.savez_compressed(paths["mnist_npz"], x_train=x, y_train=y, x_test=x[:2], y_test=y[:2])
    idx = os.path.join(folder, "idx")
    synthetic_files.write_fashion_mnist(idx)
    paths["mnist_idx"] = os.path.join(idx, "train-images-idx3-ubyte.gz")
    paths["cifar10"] = os.path.join(folder, "cifar-10-python.tar.gz")
    with tarfile.open(paths["cifar10"], "w:gz") as tar:
        for name, n in [(f"data_batch_{i}", 2) for i in range(1, 6)] + [("test_batch", 2)]:
            raw = pickle.dumps(
                {b"data": rng.integers(0, 256, (n, 3072), np.uint8),
                 b"labels": [int(v) for v in rng.integers(0, 10, n)]}, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    return paths


def _load(fmt, path):
    from lamina.datasets import boston_housing, cifar10, imdb, mnist
    if fmt == "imdb":
        return imdb.load_data(path=path)
    if fmt == "boston":
        return boston_housing.load_data(path=path)
    if fmt == "mnist_npz":
        return mnist.load_data(path=path)
    if fmt == "mnist_idx":
        return mnist.load_data(path=os.path.dirname(path))
    return cifar10.load_data(path=path)


def _declare_huge(data, rng):
    """A central-directory uncompressed size (or a local one) set to gigabytes."""
    out = bytearray(data)
    where = [i for i in range(len(out) - 4) if out[i:i + 4] in (b"PK\x01\x02", b"PK\x03\x04")]
    at = rng.choice(where)
    offset = 24 if out[at + 2] == 1 else 22
    size = rng.choice([2 * 10 ** 9, 2 ** 32 - 1, DATASET_CAP + 1])
    struct.pack_into("<I", out, at + offset, size)
    return bytes(out), f"declared size {size} at {at}"


def _swap_bomb(data, rng):
    """One member replaced by ~16-64 MiB of zeros (a 1000-times deflate)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
    k = rng.randrange(len(entries))
    header = entries[k][1][:128]
    entries[k] = (entries[k][0], header + bytes(rng.choice([16, 64]) << 20))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, raw in entries:
            zf.writestr(name, raw)
    return buffer.getvalue(), f"member {entries[k][0]} swapped for a bomb"


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) and a.dtype == object:
        return isinstance(b, np.ndarray) and a.shape == b.shape and \
            all(list(x) == list(y) for x, y in zip(a.ravel(), b.ravel()))
    return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)


def loaders_case(seed, folder, originals):
    rng = random.Random(f"loaders-{seed}")
    fmt = rng.choice(sorted(originals))
    path, data, expected = originals[fmt]
    zipped = fmt in ("imdb", "boston", "mnist_npz")
    pick = rng.random()
    if zipped and pick < 0.2:
        damaged, what = _declare_huge(data, rng)
    elif zipped and pick < 0.35:
        damaged, what = _swap_bomb(data, rng)
    else:
        mutate = rng.choice(mutators.BYTE_MUTATORS)
        damaged, what = mutate(data, rng)
    with open(path, "wb") as f:
        f.write(damaged)
    try:
        loaded = _load(fmt, path)
    except LaminaError as exc:
        assert os.path.basename(path) in str(exc), f"{fmt} {what}: not named: {exc}"
        return "refused"
    finally:
        with open(path, "wb") as f:
            f.write(data)
    assert _same(expected, loaded), f"{fmt} {what}: loaded silently different data"
    return "handled"


# --------------------------------------------------------------------------- plots
_ALPHABET = ([chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\ufffe", "\uffff", "\ud800",
             "\u2028", "é", "中", "🙂"] + list("{}|<>\"'`&;\\$ []()=#%:.,") +
             list("abcXYZ019_-"))


def _name(rng):
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 10))) + \
        str(rng.randrange(1000))


def plots_case(seed, folder):
    from lamina.utils import model_to_dot
    from lamina.utils.plotting.graph import extract
    from lamina.utils.plotting.labels import visible
    from lamina.utils.plotting.render import render_bytes
    rng = random.Random(f"plots-{seed}")
    names = [_name(rng) for _ in range(4)]
    inner = lamina.Sequential([layers.Input((3,)), layers.Dense(2, name=names[0],
                                                                 activation="relu")],
                              name=names[1])
    x = layers.Input((3,), name=names[2])
    model = lamina.Model(x, layers.Dense(1, name=names[3])(inner(x)), name="outer")
    options = dict(show_shapes=rng.random() < 0.7, show_dtype=rng.random() < 0.5,
                   show_layer_names=True, expand_nested=rng.random() < 0.7,
                   show_layer_activations=rng.random() < 0.5)
    graph = extract(model, show_trainable=rng.random() < 0.5, **options)
    root = ET.fromstring(render_bytes(graph, "svg", use_graphviz=False))
    text = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for name in (names[3], names[0]) if options["expand_nested"] else (names[3], names[1]):
        assert visible(name) in text, (name, text)
    dot_texts = [model_to_dot(model, **options).to_string()]
    saved = sys.modules.get("pydot", False)
    sys.modules["pydot"] = None                          # Lamina's own DotGraph
    try:
        dot_texts.append(model_to_dot(model, **options).to_string())
    finally:
        if saved is False:
            del sys.modules["pydot"]
        else:
            sys.modules["pydot"] = saved
    for dot in dot_texts:
        dot.encode("utf-8")                              # no lone surrogate left
        try:
            import pydot
            assert pydot.graph_from_dot_data(dot), dot
        except ImportError:
            pass
        if shutil.which("dot"):
            done = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True,
                                  timeout=30)
            assert done.returncode == 0, (names, done.stderr.decode(errors="replace"))
            ET.fromstring(done.stdout)
    return "handled"


# --------------------------------------------------------------------------- editor
def editor_case(seed, folder):
    import h5py
    from lamina.saving import KerasFileEditor
    from lamina.saving.errors import CorruptFileError
    from lamina.saving.file_editor import MAX_GROUP_DEPTH
    rng = random.Random(f"editor-{seed}")
    depth = rng.choice([rng.randint(1, 30), rng.randint(MAX_GROUP_DEPTH - 3, MAX_GROUP_DEPTH + 3),
                        rng.randint(1000, 3000)])
    link = rng.choice([None, None, "cycle", "shared"])
    path = os.path.join(folder, f"tree{seed}.weights.h5")
    expected: dict = {}
    with h5py.File(path, "w") as f:
        group, node, chain = f, expected, []
        for level in range(depth):
            name = f"g{level}"
            group = group.create_group(name)
            chain.append(group)
            if rng.random() < 0.1:                       # a sibling object with a weight
                value = np.arange(level % 5 + 1, dtype="float32")
                group.parent.create_group(f"s{level}").create_group("vars")["0"] = value
                node[f"s{level}"] = {"0": value}
            node = node.setdefault(name, {})
        value = np.linspace(0, 1, 4)
        group.create_group("vars")["0"] = value
        node["0"] = value
        if link == "cycle":
            group["back"] = chain[rng.randrange(len(chain))]
        elif link == "shared" and depth > 1:
            f["again"] = chain[-1]
        else:
            link = None
    levels = depth + 1                                   # the groups and the deepest vars
    try:
        editor = KerasFileEditor(path)
    except CorruptFileError as exc:
        assert path in str(exc)
        assert link is not None or levels > MAX_GROUP_DEPTH, f"refused a valid tree: {exc}"
        return "refused"
    assert link is None and levels <= MAX_GROUP_DEPTH, f"depth {levels}, link {link} was read"
    assert _same_tree(editor.weights_dict, expected)
    editor.save(os.path.join(folder, "again.weights.h5"))
    again = KerasFileEditor(os.path.join(folder, "again.weights.h5"))
    assert _same_tree(again.weights_dict, expected)
    return "handled"


def _same_tree(a, b) -> bool:
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) != isinstance(y, dict):
            return False
        if isinstance(x, dict):            # (the order is HDF5's; test_file_editor_depth)
            if sorted(x) != sorted(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif not np.array_equal(x, y):
            return False
    return True


# --------------------------------------------------------------------------- the sweep
def _children():
    me, found = str(os.getpid()), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[1] == me:
                    found.append(pid)
        except (OSError, IndexError):
            continue
    return sorted(found)


def resources():
    return ({t.ident for t in threading.enumerate()}, _children(),
            sorted(os.listdir("/proc/self/fd")))


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def run_case(surface, seed, folder, originals=None):
    """``"handled"`` or ``"refused"``; raises AssertionError for anything else."""
    case = f"{surface} seed {seed}"
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_TIMEOUT)
    try:
        if surface == "loaders":
            return loaders_case(seed, folder, originals)
        return {"onnx": onnx_case, "plots": plots_case, "editor": editor_case}[surface](
            seed, folder)
    except _Hang:
        raise AssertionError(f"{case}: took more than {CASE_TIMEOUT} s") from None
    except LaminaError as exc:
        if surface == "loaders":
            raise
        return "refused"
    except (AssertionError, pytest.skip.Exception):
        raise
    except BaseException as exc:
        raise AssertionError(f"{case}: raised {type(exc).__module__}.{type(exc).__name__} "
                             f"instead of a LaminaError: {exc}\n"
                             f"{traceback.format_exc()[-2000:]}") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """onnxruntime opens its telemetry database once per process: not a leak of Lamina's."""
    try:
        run_case("onnx", 0, str(tmp_path_factory.mktemp("warm")))
    except pytest.skip.Exception:
        pass


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("datasets"))
    found = {}
    for fmt, path in _write_datasets(folder).items():
        with open(path, "rb") as f:
            found[fmt] = (path, f.read(), _load(fmt, path))
    return found


@pytest.mark.parametrize("surface,seed", [(s, k) for s, n in CASES.items() for k in range(n)],
                         ids=lambda v: str(v))
def test_case_is_handled_or_refused_without_leaks(surface, seed, tmp_path, datasets, warm,
                                                  monkeypatch):
    monkeypatch.setenv("LAMINA_DATASET_MAX_BYTES", str(DATASET_CAP))
    before = resources()
    outcome = run_case(surface, seed, str(tmp_path), datasets)
    assert outcome in ("handled", "refused")
    threads, children, fds = resources()
    assert threads <= before[0], f"{surface} {seed}: threads left: {threads - before[0]}"
    assert children == before[1], f"{surface} {seed}: child processes left: {children}"
    assert fds == before[2], f"{surface} {seed}: file descriptors left: " \
                             f"{sorted(set(fds) - set(before[2]))}"


def main():
    import tempfile
    os.environ["LAMINA_DATASET_MAX_BYTES"] = str(DATASET_CAP)
    with tempfile.TemporaryDirectory() as folder:
        originals = {fmt: (path, open(path, "rb").read(), _load(fmt, path))
                     for fmt, path in _write_datasets(folder).items()}
        for surface, count in CASES.items():
            tally = {"handled": 0, "refused": 0}
            for seed in range(count):
                with tempfile.TemporaryDirectory() as case_folder:
                    tally[run_case(surface, seed, case_folder, originals)] += 1
            print(f"{surface}: {count} cases, {tally['handled']} handled, "
                  f"{tally['refused']} refused, each within {CASE_TIMEOUT} s")


if __name__ == "__main__":
    main()
