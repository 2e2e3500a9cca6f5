"""Where predict writes its outputs: one host array per output, allocated once."""
from __future__ import annotations

import numpy as np

from .. import tree


class OutputBuffer:
    """Collects batches of outputs. With a known sample count each output is one array
    allocated after the first batch and written in place; otherwise batches are kept and
    concatenated at the end (generators of unknown length)."""

    def __init__(self, total: int | None):
        self.total = total
        self.structure = None
        self.arrays = None
        self.chunks = []
        self.offset = 0

    def add(self, outputs) -> None:
        leaves = [np.asarray(t.numpy() if hasattr(t, "numpy") else t)
                  for t in tree.flatten(outputs)]
        if self.structure is None:
            self.structure = outputs
            if self.total is not None:
                self.arrays = [np.empty((self.total, *leaf.shape[1:]), leaf.dtype)
                               for leaf in leaves]
        count = len(leaves[0]) if leaves and leaves[0].ndim else 1
        if self.arrays is not None:
            if self.offset + count > self.total:
                raise ValueError(f"predict: the data yielded more than the {self.total} "
                                 f"samples it announced")
            for array, leaf in zip(self.arrays, leaves):
                array[self.offset:self.offset + count] = leaf
        else:
            self.chunks.append(leaves)
        self.offset += count

    def result(self):
        if self.structure is None:
            raise ValueError("predict: the data yielded no batches")
        if self.arrays is None:
            arrays = [np.concatenate(parts) for parts in zip(*self.chunks)]
        else:
            arrays = [a[:self.offset] for a in self.arrays]
        return tree.pack_sequence_as(self.structure, arrays)
