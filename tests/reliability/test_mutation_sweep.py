"""The seeded mutation sweep (issue 10, item 11): files Lamina wrote, damaged at random --
truncated, bytes and bits flipped (in headers and in dataset data), blocks zeroed, and for
``.keras`` zips entries rewritten (config.json mutations, duplicated and missing entries,
wrong CRCs, damaged weights re-zipped). Each case must end in one of two ways:

* the file loads and the model predicts what the original did, bit for bit, with the very
  same weights (and optimizer state); or
* a :class:`lamina.errors.LaminaError` is raised whose message names the damaged file.

Anything else fails with the case's seed and mutation: a raw h5py / zipfile / json / numpy
exception, a silently different model, or a load that takes more than ``CASE_TIMEOUT``
seconds. The disk-fault cases (full disk, file-size limit, read-only folder) are in
``tests/saving/test_save_faults.py``.
"""
import random
import signal
import traceback

import numpy as np
import pytest

from lamina.errors import LaminaError

from . import mutators
from .sweep_files import LOADERS, write_all

CASE_TIMEOUT = 10
CASES = {"keras": 70, "weights": 50, "legacy": 50, "exported": 40, "backup": 40}
XFAIL: dict = {}          # (format, seed) -> reason, for a case that cannot be fixed yet


def _mutator(fmt: str, rng: random.Random):
    if fmt == "keras" and rng.random() < 0.5:
        return rng.choice(mutators.ZIP_MUTATORS)
    return rng.choice(mutators.BYTE_MUTATORS)


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    paths = write_all(str(folder))
    found = {}
    for fmt, path in paths.items():
        with open(path, "rb") as f:
            data = f.read()
        found[fmt] = (path, data, LOADERS[fmt](path))
    return found


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _params():
    for fmt, count in CASES.items():
        for seed in range(count):
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[fmt, seed])] \
                if (fmt, seed) in XFAIL else []
            yield pytest.param(fmt, seed, id=f"{fmt}-{seed}", marks=marks)


@pytest.mark.parametrize("fmt,seed", list(_params()))
def test_damaged_file_loads_identically_or_is_refused(originals, tmp_path, fmt, seed):
    original_path, data, (expected, expected_weights) = originals[fmt]
    rng = random.Random(f"{fmt}-{seed}")
    mutate = _mutator(fmt, rng)
    damaged, what = mutate(data, rng)
    path = tmp_path / original_path.rsplit("/", 1)[-1]
    path.write_bytes(damaged)
    case = f"format {fmt}, seed {seed}, {mutate.__name__}: {what}"
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_TIMEOUT)
    try:
        predicted, weights = LOADERS[fmt](str(path))
    except LaminaError as exc:
        assert str(path) in str(exc), f"{case}: the error does not name the file: {exc}"
        return
    except _Hang:
        pytest.fail(f"{case}: loading took more than {CASE_TIMEOUT} s")
    except BaseException as exc:
        pytest.fail(f"{case}: raised {type(exc).__module__}.{type(exc).__name__} instead of "
                    f"a LaminaError: {exc}\n{traceback.format_exc()[-2500:]}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert predicted.shape == expected.shape and \
        np.array_equal(predicted, expected, equal_nan=True), \
        f"{case}: loaded silently with different predictions"
    assert len(weights) == len(expected_weights) and all(
        a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
        for a, b in zip(weights, expected_weights)), \
        f"{case}: loaded silently with different weights"
