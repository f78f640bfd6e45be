"""Quality of offload-ls's lints on the labelled corpus (tests/corpus/README.md).

Runs ``offload-ls check`` with DEFAULT settings on every corpus entry (a file, or a crate
directory checked as a whole) and compares what it reports with the annotations. Prints:

- precision and recall per rule and per ecosystem (a reported finding is a true positive
  when an annotation names the same file, line, rule and level);
- correct cases with any finding (noise on code that is right), deny-level findings on
  correct code, and ``unsafe_in_kernel`` findings on correct kernels;
- findings per 1,000 lines on the example crates (``examples/``), which are correct code
  apart from ``examples/lint-gallery`` (a gallery of hazards on purpose);
- whether the targets are met: precision >= 95 % and recall >= 90 % overall, no deny-level
  finding on correct code, ``unsafe_in_kernel`` quiet on every correct kernel.

    python3 benchmarks/lint_quality.py [--corpus DIR] [--details] [--json FILE]

``--corpus`` measures another labelled set laid out the same way (a held-out set).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import _project_python  # noqa: E402

_project_python.ensure()

from corpus_support import CORPUS, case_of, compare, load, reported  # noqa: E402

from offload_ls.cli.check import check_paths  # noqa: E402

TARGET_PRECISION = 0.95
TARGET_RECALL = 0.90


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _pct(x: float | None) -> str:
    return "   –  " if x is None else f"{100 * x:5.1f}%"


def measure(corpus: Path) -> dict:
    entries = load(corpus)
    per_rule: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tp, fp, fn
    per_eco: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    noisy_cases: set[tuple[str, str, int]] = set()
    deny_on_correct: list[str] = []
    unsafe_on_correct: list[str] = []
    details: list[str] = []
    n_cases = n_correct = lines = 0
    for e in entries:
        got = reported(e)
        cmp = compare(e.expected, got)
        lines += e.lines
        n_cases += len(e.cases)
        n_correct += sum(c.label == "correct" for c in e.cases)
        for key, idx in (("tp", 0), ("fp", 1), ("fn", 2)):
            for x in getattr(cmp, key):
                per_rule[x.rule][idx] += 1
                per_eco[e.ecosystem][idx] += 1
                if key != "tp":
                    details.append(f"{'extra ' if key == 'fp' else 'missed'} {e.name}: {x.file}:{x.line}: "
                                   f"{x.level}[{x.rule}]")
        for x in got:
            c = case_of(e, x)
            if c is not None and c.label == "correct":
                noisy_cases.add((e.name, c.file, c.line))
                where = f"{e.name}: {x.file}:{x.line}: {x.level}[{x.rule}]"
                if x.level == "deny":
                    deny_on_correct.append(where)
                if x.rule == "unsafe_in_kernel":
                    unsafe_on_correct.append(where)
    tp = sum(v[0] for v in per_rule.values())
    fp = sum(v[1] for v in per_rule.values())
    fn = sum(v[2] for v in per_rule.values())
    return {
        "entries": len(entries), "cases": n_cases, "correct_cases": n_correct, "lines": lines,
        "per_rule": dict(per_rule), "per_ecosystem": dict(per_eco),
        "tp": tp, "fp": fp, "fn": fn,
        "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
        "noisy_correct_cases": sorted(noisy_cases), "deny_on_correct": deny_on_correct,
        "unsafe_on_correct": unsafe_on_correct, "details": details,
    }


def examples_density() -> list[tuple[str, int, int]]:
    """(example crate, lines, findings) with default settings."""
    out = []
    for crate in sorted((ROOT / "examples").iterdir()):
        if not (crate / "Cargo.toml").is_file():
            continue
        result = check_paths([crate], stderr=io.StringIO(), cwd=crate)
        lines = sum(fr.source.count(b"\n") for fr in result.files)
        out.append((crate.name, lines, len(result.findings)))
    return out


def _table(title: str, rows: dict[str, list[int]]) -> list[str]:
    out = [f"{title:<32} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}"]
    for name in sorted(rows):
        t, p, n = rows[name]
        out.append(f"{name:<32} {t:>4} {p:>4} {n:>4} {_pct(_ratio(t, t + p)):>10} {_pct(_ratio(t, t + n)):>8}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="labelled corpus directory (default: tests/corpus)")
    ap.add_argument("--details", action="store_true", help="list every missed and extra finding")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    m = measure(args.corpus)
    print(f"corpus: {args.corpus} — {m['entries']} entries, {m['cases']} cases "
          f"({m['correct_cases']} correct, {m['cases'] - m['correct_cases']} hazards), {m['lines']} lines")
    print()
    print("\n".join(_table("rule", m["per_rule"])))
    print()
    print("\n".join(_table("ecosystem", m["per_ecosystem"])))
    print()
    print(f"overall: TP {m['tp']}, FP {m['fp']}, FN {m['fn']}: precision {_pct(m['precision'])}, "
          f"recall {_pct(m['recall'])}")
    print(f"correct cases with any finding: {len(m['noisy_correct_cases'])} of {m['correct_cases']}")
    print(f"deny-level findings on correct code: {len(m['deny_on_correct'])}")
    print(f"unsafe_in_kernel findings on correct kernels: {len(m['unsafe_on_correct'])}")
    for line in m["deny_on_correct"] + m["unsafe_on_correct"]:
        print(f"  {line}")
    if args.details:
        print()
        print("\n".join(m["details"]) or "no missed or extra findings")
    print()
    print("example crates (default settings):")
    dens = examples_density()
    for name, lines, n in dens:
        print(f"  {name:<24} {lines:>5} lines {n:>4} findings {1000 * n / max(lines, 1):7.1f} per 1,000 lines")
    ok = {
        f"precision >= {TARGET_PRECISION:.0%}": (m["precision"] or 0) >= TARGET_PRECISION,
        f"recall >= {TARGET_RECALL:.0%}": (m["recall"] or 0) >= TARGET_RECALL,
        "no deny-level finding on correct code": not m["deny_on_correct"],
        "unsafe_in_kernel quiet on correct kernels": not m["unsafe_on_correct"],
    }
    print()
    for what, met in ok.items():
        print(f"target {what}: {'met' if met else 'MISSED'}")
    if args.json:
        m["examples"] = dens
        args.json.write_text(json.dumps(m, indent=2, default=list) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
