"""Tables of Lamina's outcomes on Keras's baseline-passing tests: per test module, per area,
and the list of every test that does not pass with its reason."""
import collections

from .classify import INTERNAL, MESSAGE, PASSED, reason


def module_of(test_id: str) -> str:
    """``keras/src/ops/nn_test.py::C::t`` -> ``ops/nn_test``."""
    return test_id.split("::", 1)[0].removeprefix("keras/src/").removesuffix(".py")


def area_of(test_id: str) -> str:
    return module_of(test_id).split("/", 1)[0]


def classify_all(baseline: dict, results: dict) -> dict:
    """{test id: (reason, detail)} for every test that passes on Keras's JAX backend."""
    broken = {k.split("::<collection>")[0]: v for k, v in results.items()
              if k.endswith("::<collection>")}
    out = {}
    for test_id, outcome in baseline.items():
        if outcome != "passed":
            continue
        if test_id in results:
            got, detail = results[test_id]
        else:
            got, detail = "error", broken.get(test_id.split("::", 1)[0],
                                              ["", "not collected"])[1]
        out[test_id] = (reason(got, detail), detail)
    return out


class Row:
    def __init__(self, name):
        self.name = name
        self.reasons = collections.Counter()

    @property
    def baseline(self):
        return sum(self.reasons.values())

    @property
    def public(self):
        return self.baseline - self.reasons[INTERNAL]

    @property
    def passed(self):
        return self.reasons[PASSED]

    @property
    def share(self):
        return self.passed / self.public if self.public else 1.0

    def others(self):
        return ", ".join(f"{r} {n}" for r, n in self.reasons.most_common()
                         if r not in (PASSED, INTERNAL))


def rows(classified: dict, key=module_of) -> list[Row]:
    table: dict[str, Row] = {}
    for test_id, (why, _) in classified.items():
        table.setdefault(key(test_id), Row(key(test_id))).reasons[why] += 1
    return [table[name] for name in sorted(table)]


def total(classified: dict, name="all") -> Row:
    row = Row(name)
    for why, _ in classified.values():
        row.reasons[why] += 1
    return row


def markdown_table(table: list[Row], totals: list[Row]) -> str:
    lines = ["| module | pass on JAX | use internals | public API | pass on Lamina | % | "
             "message differs | the rest |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for row in [*table, *totals]:
        name = f"**{row.name}**" if row in totals else row.name
        lines.append(f"| {name} | {row.baseline} | {row.reasons[INTERNAL]} | {row.public} | "
                     f"{row.passed} | {100 * row.share:.1f} | {row.reasons[MESSAGE]} | "
                     f"{row.others() if row not in totals else ''} |")
    return "\n".join(lines)


def failure_list(classified: dict) -> str:
    """Every baseline-passing public-API test that does not pass, grouped by reason."""
    by_reason = collections.defaultdict(list)
    for test_id, (why, detail) in sorted(classified.items()):
        if why not in (PASSED, INTERNAL):
            by_reason[why].append((test_id, detail))
    parts = []
    for why in sorted(by_reason, key=lambda r: -len(by_reason[r])):
        parts.append(f"\n### {why} ({len(by_reason[why])})\n")
        parts += [f"- `{test_id}`: {detail[:160].replace('|', '/')}"
                  for test_id, detail in by_reason[why]]
    return "\n".join(parts)
