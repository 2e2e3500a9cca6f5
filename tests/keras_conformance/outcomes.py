"""A pytest plugin that writes each test's outcome to a JSON file, so the runner can compare
Lamina's outcomes with the fixture recorded on Keras's JAX backend.

Loaded with ``-p outcomes`` (its folder on ``sys.path``) in both runs; the file named by
``LAMINA_CONFORMANCE_OUT`` receives ``{node id: [outcome, detail]}``, where outcome is
``passed``, ``failed``, ``skipped`` or ``error`` and detail is the first line of the failure
(empty for a pass) and the innermost ``lamina/`` frame when there is one."""
import json
import os
import re

_results: dict = {}


def _node_key(nodeid: str) -> str:
    """``.../site-packages/keras/src/ops/nn_test.py::C::t`` -> ``keras/src/ops/nn_test.py::C::t``."""
    index = nodeid.find("keras/src/")
    return nodeid[index:] if index >= 0 else nodeid


def _detail(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(report.longrepr)
    lines = [line for line in message.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    for line in lines[1:4]:                     # pytest.raises(match=) puts the regex below
        if "Regex" in line or "Input:" in line or "does not match" in line:
            first += " | " + line.strip()
    where = ""
    text = str(report.longrepr)
    frames = re.findall(r"(lamina/[\w/]+\.py):(\d+)", text)
    if frames:
        where = "%s:%s" % frames[-1]
    return (first[:400] + (" @ " + where if where else "")).strip()


def pytest_runtest_logreport(report):
    key = _node_key(report.nodeid)
    if report.when == "call" or (report.outcome != "passed" and report.when == "setup"):
        outcome = report.outcome
        if report.when == "setup" and outcome == "failed":
            outcome = "error"
        _results[key] = [outcome, "" if outcome == "passed" else _detail(report)]
    elif report.when == "teardown" and report.outcome == "failed" and key in _results:
        _results[key] = ["error", "teardown: " + _detail(report)]


def pytest_collectreport(report):
    if report.outcome == "failed":
        _results[_node_key(report.nodeid) + "::<collection>"] = ["error", _detail(report)]


def pytest_sessionfinish(session):
    path = os.environ.get("LAMINA_CONFORMANCE_OUT")
    if path:
        with open(path, "w") as f:
            json.dump(_results, f, indent=0, sort_keys=True)
