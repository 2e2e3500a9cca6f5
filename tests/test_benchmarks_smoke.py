"""Smoke tests of the peer/contention benchmark scripts: they run and clean up. No timing is
asserted (benchmarks print ratios; they are never timed tests)."""
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "benchmarks")
_saved_path = list(sys.path)
sys.path.insert(0, BENCHMARKS)
try:
    import contention  # noqa: E402
    import keras_workloads as kw  # noqa: E402
    import vs_peers  # noqa: E402
finally:
    sys.path[:] = _saved_path          # benchmarks/ops.py etc. must not shadow other imports

import lamina  # noqa: E402


def test_groups_parse_and_reject_unknown_names():
    assert kw.parse_groups(None) == set(kw.GROUPS)
    assert kw.parse_groups("resnet, rnn") == {"resnet", "rnn"}
    with pytest.raises(SystemExit):
        kw.parse_groups("resnet,transformer")


def test_rnn_workloads_run_in_lamina():
    rows = []
    kw.run_keras_api(lamina, lambda *row: rows.append(row), {"rnn"}, warmup=1, steps=1)
    assert [(name, unit) for name, _, unit in rows] == [("lstm128_train", "ms/step"),
                                                         ("gru128_train", "ms/step")]
    assert all(value > 0 for _, value, _ in rows)


def test_the_competing_process_is_killed_even_when_the_block_raises():
    with pytest.raises(KeyboardInterrupt):
        with contention.Competitor(1, dict(os.environ)) as competitor:
            assert competitor.process.poll() is None
            raise KeyboardInterrupt
    assert competitor.process.poll() is not None


def test_report_prints_ratios_for_the_rows_that_ran(capsys):
    best = {("lamina", "resnet50_infer_b1"): 50.0, ("pytorch-eager", "resnet50_infer_b1"): 25.0,
            ("lamina", "lstm128_train"): 10.0, ("numpy-gemm-roofline", "sgemm_1024"): 100.0}
    vs_peers._report("env", best)
    out = capsys.readouterr().out
    assert "resnet50_infer_b1" in out and "0.50x" in out
    assert "mlp_train" not in out                      # a group that did not run
