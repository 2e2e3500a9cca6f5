"""Schedule each gradient bucket's allreduce right after the bucket's last gradient.

A data-parallel train step traces the exchange after the whole backward pass (the
optimizer's ``apply`` packs the gradients into buckets and starts one ``allreduce_start``
per bucket, then waits on each with ``allreduce_wait``). This pass re-sorts the nodes so
the exchange overlaps the rest of the backward pass: the nodes that exist only to feed
starts (the share multiplies, reshapes, concatenation, the starts themselves) run as soon
as they are ready, first bucket (the last layers' gradients) first; every other node
keeps its order. Waits stay where they were, before the update. A topological sort by
(bucket, original position) keeps the order valid.
"""
from __future__ import annotations

import heapq

from ...core.symbolic import SymbolicTensor
from . import register

START = "allreduce_start"


def _bucket_of(graph, nodes) -> dict[int, int]:
    """id(node) -> the index of the first bucket (start, in trace order) the node exists
    only to feed: the starts and the nodes whose outputs only such nodes read."""
    readers = graph.consumers()
    roots = {id(r) for r in graph.roots()}
    bucket: dict[int, int] = {}
    for node in nodes:
        if node.op.name == START:
            bucket[id(node)] = node.attrs.get("bucket", 0)
    for node in reversed(nodes):
        if id(node) in bucket:
            continue
        outs = node.outputs
        if outs and all(id(o) not in roots and readers.get(id(o)) and
                        all(id(r) in bucket for r in readers[id(o)]) for o in outs):
            bucket[id(node)] = min(bucket[id(r)] for o in outs for r in readers[id(o)])
    return bucket


@register("schedule_collectives")
def schedule_collectives(graph):
    nodes = graph.nodes
    if not any(node.op.name == START for node in nodes):
        return graph
    bucket = _bucket_of(graph, nodes)
    later = max(bucket.values()) + 1      # past every bucket: the other nodes
    position = {id(node): i for i, node in enumerate(nodes)}
    producer = {id(o): node for node in nodes for o in node.outputs}
    waiting: dict[int, int] = {}
    dependents: dict[int, list] = {}
    for node in nodes:
        inputs = {id(producer[id(x)]) for x in node.inputs
                  if isinstance(x, SymbolicTensor) and id(x) in producer}
        waiting[id(node)] = len(inputs)
        for i in inputs:
            dependents.setdefault(i, []).append(node)
    ready = [(bucket.get(id(n), later), position[id(n)], n) for n in nodes
             if not waiting[id(n)]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, node = heapq.heappop(ready)
        order.append(node)
        for dependent in dependents.get(id(node), ()):
            waiting[id(dependent)] -= 1
            if not waiting[id(dependent)]:
                heapq.heappush(ready, (bucket.get(id(dependent), later),
                                       position[id(dependent)], dependent))
    assert len(order) == len(nodes), "schedule_collectives: the graph has a cycle"
    graph.nodes = order
    return graph
