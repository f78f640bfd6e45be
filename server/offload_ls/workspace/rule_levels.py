"""Rule-level tables (``{rule: level}``) from any source: the editor's ``rules`` setting
(settings.py) and Cargo.toml's ``[*.metadata.offload-ls]`` (cargo.py) are validated alike."""

from __future__ import annotations

from typing import Any

from offload_ls.analysis.model import Level


def parse_rule_levels(raw: Any, where: str) -> tuple[dict[str, Level], list[str]]:
    """Validate a ``{rule: level}`` table (from settings or Cargo.toml metadata).

    Unknown rule names and invalid levels are reported in the problems list and skipped.
    """
    from offload_ls.analysis.rules import all_rules

    if not isinstance(raw, dict):
        return {}, [f"{where} must be a table of rule = level, got {type(raw).__name__}"]
    known = all_rules()
    out: dict[str, Level] = {}
    problems = []
    for name, value in raw.items():
        if name not in known:
            problems.append(f"{where}: unknown rule `{name}` (known: {', '.join(known)})")
            continue
        try:
            out[name] = Level(value)
        except ValueError:
            problems.append(f"{where}.{name}: level must be \"allow\", \"warn\" or \"deny\", got {value!r}")
    return out, problems
