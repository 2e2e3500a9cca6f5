"""CTC decoding kernels (greedy and prefix beam search), run on host arrays.

Decoding is a search with data-dependent control flow and no gradient; it runs on the host
(a device array is copied there and the result back), as Keras's backends do.
Both return ``(decoded, scores)``: decoded (top_paths, batch, time) int32 class ids padded
with -1, and scores (batch, top_paths).
"""
from __future__ import annotations

import numpy


def greedy_decode(x, lengths, merge_repeated: bool, blank: int):
    """The best class per step; repeats merged (if asked) and blanks dropped. The score is
    minus the sum of the chosen inputs over the valid steps (Keras's convention)."""
    batch, steps, _ = x.shape
    best = x.argmax(axis=-1).astype(numpy.int32)
    valid = numpy.arange(steps)[None, :] < lengths[:, None]
    best = numpy.where(valid, best, blank)
    scores = -numpy.where(valid, x.max(axis=-1), 0.0).sum(axis=1, keepdims=True)
    decoded = numpy.full((1, batch, steps), -1, dtype=numpy.int32)
    for b in range(batch):
        labels = best[b]
        keep = labels != blank
        if merge_repeated:
            keep &= numpy.concatenate([[True], labels[1:] != labels[:-1]])
        kept = labels[keep]
        decoded[0, b, :len(kept)] = kept
    return decoded, scores.astype(x.dtype)


def _logaddexp(a: float, b: float) -> float:
    return float(numpy.logaddexp(a, b))


def beam_search_decode(logp, lengths, beam_width: int, top_paths: int, blank: int):
    """CTC prefix beam search over log-probabilities: every prefix keeps the probability of
    ending in a blank and in a label; the ``beam_width`` most probable prefixes survive
    each step. Scores are the prefixes' log-probabilities."""
    batch, steps, classes = logp.shape
    neg = -numpy.inf
    decoded = numpy.full((top_paths, batch, steps), -1, dtype=numpy.int32)
    scores = numpy.full((batch, top_paths), neg, dtype=logp.dtype)
    for b in range(batch):
        frames = logp[b, :max(int(lengths[b]), 1)]
        first = frames[0]
        order = numpy.argsort(-first, kind="stable")[:min(classes, beam_width)]
        beams: dict = {}
        for c in order:
            prefix = () if c == blank else (int(c),)
            blank_p, label_p = beams.get(prefix, (neg, neg))
            if c == blank:
                blank_p = _logaddexp(blank_p, first[c])
            else:
                label_p = _logaddexp(label_p, first[c])
            beams[prefix] = (blank_p, label_p)
        for frame in frames[1:]:
            grown: dict = {}

            def add(prefix, blank_p=neg, label_p=neg):
                old_b, old_l = grown.get(prefix, (neg, neg))
                grown[prefix] = (_logaddexp(old_b, blank_p), _logaddexp(old_l, label_p))

            for prefix, (blank_p, label_p) in beams.items():
                total = _logaddexp(blank_p, label_p)
                add(prefix, blank_p=total + frame[blank])
                for c in range(classes):
                    if c == blank:
                        continue
                    if prefix and prefix[-1] == c:
                        add(prefix, label_p=label_p + frame[c])          # repeat, merged
                        add(prefix + (c,), label_p=blank_p + frame[c])   # after a blank
                    else:
                        add(prefix + (c,), label_p=total + frame[c])
            ranked = sorted(grown.items(), key=lambda kv: -_logaddexp(*kv[1]))
            beams = dict(ranked[:beam_width])
        ranked = sorted(beams.items(), key=lambda kv: -_logaddexp(*kv[1]))[:top_paths]
        for p, (prefix, (blank_p, label_p)) in enumerate(ranked):
            decoded[p, b, :len(prefix)] = prefix
            scores[b, p] = _logaddexp(blank_p, label_p)
    return decoded, scores


class CTCKernels:
    """Mixed into Backend: ``ctc_decode`` on the host, results back on the device."""

    def ctc_decode(self, x, lengths, strategy: str, beam_width: int, top_paths: int,
                   merge_repeated: bool, blank: int):
        host_x = numpy.asarray(self.to_host(x))
        host_len = numpy.asarray(self.to_host(lengths)).astype(numpy.int64)
        if strategy == "greedy":
            decoded, scores = greedy_decode(host_x, host_len, merge_repeated, blank)
        else:
            shifted = host_x - host_x.max(axis=-1, keepdims=True)
            logp = shifted - numpy.log(numpy.exp(shifted).sum(axis=-1, keepdims=True))
            decoded, scores = beam_search_decode(logp, host_len, beam_width, top_paths,
                                                 blank)
        return self.asarray(decoded), self.asarray(scores)
