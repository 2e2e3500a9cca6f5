"""mode="auto": which way is "better" for a monitored quantity (shared by EarlyStopping,
ModelCheckpoint and ReduceLROnPlateau)."""
import pytest

from lamina import metrics, ops
from lamina.callbacks import EarlyStopping, ModelCheckpoint, ReduceLROnPlateau

from .tiny import fit, one_weight_model


class MetricFree:
    """A model stand-in with no metric objects: only the name rules apply."""
    metrics = []


def direction(callback, model):
    callback.set_model(model)
    callback._set_monitor_op()
    return {ops.less: "min", ops.greater: "max"}[callback.monitor_op]


@pytest.mark.parametrize("monitor, expected", [
    ("loss", "min"), ("val_loss", "min"), ("val_out_loss", "min"),
    ("accuracy", "max"), ("val_acc", "max"), ("val_top3_acc", "max"), ("auc", "max"),
    ("val_precision", "max"), ("recall", "max"),
])
def test_auto_mode_by_name(monitor, expected):
    assert direction(EarlyStopping(monitor=monitor), MetricFree()) == expected


def test_auto_mode_uses_the_compiled_metrics_direction():
    # Names that no name rule knows: only the metric objects' _direction can tell.
    model = one_weight_model(metrics=[metrics.MeanAbsoluteError(name="err"),
                                      metrics.BinaryAccuracy(name="hits")])
    history = fit(model, 1, [], validate=True)
    assert {"err", "hits", "val_err", "val_hits"} <= set(history.history)
    assert direction(EarlyStopping(monitor="val_err"), model) == "min"
    assert direction(ModelCheckpoint("m.keras", monitor="hits"), model) == "max"
    with pytest.raises(ValueError, match="monitor=val_hits, but it cannot tell"):
        direction(EarlyStopping(monitor="val_hits"), MetricFree())


def test_explicit_mode_wins():
    assert direction(EarlyStopping(monitor="val_accuracy", mode="min"), MetricFree()) == "min"
    assert direction(ReduceLROnPlateau(monitor="loss", mode="max"), MetricFree()) == "max"


def test_min_delta_sign_follows_the_direction():
    stop = EarlyStopping(monitor="loss", min_delta=-0.5)     # its absolute value is used
    stop.set_model(MetricFree())
    assert stop.min_delta == 0.5
    assert not stop._is_improvement(0.6, 1.0)    # 0.6 is not below 1.0 - 0.5
    assert stop._is_improvement(0.4, 1.0)
    grow = EarlyStopping(monitor="accuracy", min_delta=0.5)
    grow.set_model(MetricFree())
    assert not grow._is_improvement(0.9, 0.5) and grow._is_improvement(1.1, 0.5)


def test_unknown_direction_is_a_value_error():
    stop = EarlyStopping(monitor="val_mystery")
    with pytest.raises(ValueError, match="EarlyStopping callback received "
                                         "monitor=val_mystery, but it cannot tell whether"):
        fit(one_weight_model(), 2, [stop], validate=True)
