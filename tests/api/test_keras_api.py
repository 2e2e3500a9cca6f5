"""The name walk of issue 11: every public name of Keras 3.15.1 (tests/api/keras_api.json,
1383 names in 31 namespaces) is in Lamina with Keras's signature, or excluded with a reason
(another backend's, or complex-valued), or pending for a named later issue."""
import collections

import pytest

from tests.api import api_walk

REFERENCE = api_walk.load_reference()
RESULTS = list(api_walk.walk(REFERENCE))
BY_NAMESPACE = collections.defaultdict(list)
for _namespace, _name, _status, _detail in RESULTS:
    BY_NAMESPACE[_namespace].append((_name, _status, _detail))


def test_the_reference_is_keras_3_15_1_with_every_namespace():
    assert sum(len(names) for names in REFERENCE.values()) == 1383
    assert len(REFERENCE) == 31


@pytest.mark.parametrize("namespace", sorted(REFERENCE))
def test_every_name_is_present_with_keras_signature(namespace):
    gaps = [(name, status, detail) for name, status, detail in BY_NAMESPACE[namespace]
            if status in ("missing", "signature")]
    assert not gaps, "\n".join(
        f"{namespace}.{name}: {status}: " + (
            f"keras {detail[0]} / lamina {detail[1]}" if status == "signature" else detail)
        for name, status, detail in gaps)


def test_pending_names_are_really_absent_and_name_their_issue():
    # A pending entry is for a name a later issue builds: once it lands, it must leave the
    # list (and then be checked like any other name).
    for namespace, name, status, detail in RESULTS:
        if status == "pending":
            assert "issue 1" in detail, (namespace, name, detail)
    landed = []
    for namespace, name in ((n, k) for n, names in REFERENCE.items() for k in names):
        if api_walk.pending(namespace, name) and api_walk.lookup(namespace, name)[1]:
            landed.append(f"{namespace}.{name}")
    assert not landed, f"pending names that now exist (remove them from PENDING): {landed}"


def test_exclusions_name_real_keras_names_with_reasons():
    every = {f"{n}.{k}" for n, names in REFERENCE.items() for k in names} | set(REFERENCE)
    for key, reason in api_walk.EXCLUDED.items():
        assert key in every, key
        assert len(reason) > 20, key


def test_the_walk_notices_a_missing_name_and_a_wrong_signature(monkeypatch):
    import lamina
    monkeypatch.delattr(lamina.ops, "argsort")
    statuses = {(n, k): s for n, k, s, _ in api_walk.walk(
        {"keras.ops": REFERENCE["keras.ops"]})}
    assert statuses[("keras.ops", "argsort")] == "missing"

    def wrong(x, axis=0):
        return x
    monkeypatch.setattr(lamina.ops, "sort", wrong)
    statuses = {(n, k): s for n, k, s, _ in api_walk.walk(
        {"keras.ops": REFERENCE["keras.ops"]})}
    assert statuses[("keras.ops", "sort")] == "signature"


def test_counts():
    counts = collections.Counter(status for _, _, status, _ in RESULTS)
    assert counts["present"] >= 1249 and counts["missing"] == 0 and counts["signature"] == 0
