"""Progress-bar scenarios replayed on Keras (progbar_reference_make.py) and on Lamina
(test_progbar_keras_bytes.py): a clock that reads fixed values, a stdout that is a
terminal, and the calls fit / evaluate / predict make on ProgbarLogger, or direct
Progbar updates."""
import io
import sys
import time


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    """time.time / perf_counter reading 1000.0 and then ``step`` seconds later each call."""

    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def __call__(self):
        value = self.now
        self.now += self.step
        return value


def _logs(i):
    return {"loss": 1.0 / (i + 1), "accuracy": 0.5 + 0.01 * i}


def fit(keras, verbose, epochs, steps, validation=True):
    logger = keras.callbacks.ProgbarLogger()
    logger.set_params({"verbose": verbose, "epochs": epochs, "steps": steps})
    logger.on_train_begin()
    for epoch in range(epochs):
        logger.on_epoch_begin(epoch)
        for batch in range(steps or 5):
            logger.on_train_batch_begin(batch)
            logger.on_train_batch_end(batch, _logs(batch))
        logs = _logs(9)
        if validation:
            logs.update({"val_loss": 0.25, "val_accuracy": 0.0004})
        logger.on_epoch_end(epoch, logs)
    logger.on_train_end()


def evaluate(keras, verbose, steps):
    logger = keras.callbacks.ProgbarLogger()
    logger.set_params({"verbose": verbose, "epochs": 1, "steps": steps})
    logger.on_test_begin()
    for batch in range(steps):
        logger.on_test_batch_begin(batch)
        logger.on_test_batch_end(batch, _logs(batch))
    logger.on_test_end(_logs(7))


def predict(keras, verbose, steps):
    logger = keras.callbacks.ProgbarLogger()
    logger.set_params({"verbose": verbose, "epochs": 1, "steps": steps})
    logger.on_predict_begin()
    for batch in range(steps):
        logger.on_predict_batch_begin(batch)
        logger.on_predict_batch_end(batch, {"outputs": None})
    logger.on_predict_end()


def progbar(keras, target, verbose, updates):
    bar = keras.utils.Progbar(target, verbose=verbose, stateful_metrics=["lr"])
    for current, values in updates:
        bar.update(current, values)


SCENARIOS = {
    "fit_v1_3_epochs": (fit, dict(verbose=1, epochs=3, steps=4), 0.03),
    "fit_v1_1_epoch_long_steps": (fit, dict(verbose=1, epochs=1, steps=12), 7.5),
    "fit_v1_one_epoch_no_validation": (fit, dict(verbose=1, epochs=1, steps=3,
                                                 validation=False), 0.0004),
    "fit_v1_unknown_steps": (fit, dict(verbose=1, epochs=2, steps=None), 0.2),
    "fit_v2": (fit, dict(verbose=2, epochs=2, steps=4), 0.03),
    "evaluate_v1": (evaluate, dict(verbose=1, steps=5), 0.01),
    "predict_v1": (predict, dict(verbose=1, steps=3), 0.01),
    "progbar_eta_minutes": (progbar, dict(target=100, verbose=1, updates=[
        (1, [("loss", 2.0), ("lr", 0.1)]), (2, [("loss", 1.0), ("lr", 0.05)]),
        (50, [("loss", 0.5), ("lr", 0.01)]), (100, [("loss", 0.25), ("lr", 0.001)])]), 40.0),
    "progbar_hours": (progbar, dict(target=3, verbose=1, updates=[
        (1, [("loss", 2.0)]), (2, [("loss", 1e-5)]), (3, [("loss", 1.0)])]), 4000.0),
    "progbar_v2": (progbar, dict(target=3, verbose=2, updates=[
        (1, [("loss", 2.0)]), (3, [("loss", -1.0)])]), 0.5),
}


def run(keras, scenario):
    """The bytes ``scenario`` writes to a terminal with the fixed clock."""
    fn, kwargs, step = scenario
    clock = Clock(step)
    stdout, real_time, real_perf = sys.stdout, time.time, time.perf_counter
    sys.stdout = Terminal()
    time.time = time.perf_counter = clock
    try:
        fn(keras, **kwargs)
        return sys.stdout.getvalue()
    finally:
        written = sys.stdout
        sys.stdout, time.time, time.perf_counter = stdout, real_time, real_perf
        del written
