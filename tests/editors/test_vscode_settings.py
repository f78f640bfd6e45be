"""The VS Code extension's settings (editors/vscode/package.json, ``contributes.configuration``)
mirror the server's schema, ``offload_ls.settings.Settings``: same keys (except
``trustedWorkspaces``, which the extension computes from workspace trust), same JSON types,
defaults, allowed values and bounds, so the two cannot drift. The extension-side checks
(SERVER_KEYS in src/settings.ts vs package.json) are in editors/vscode/test/settings.test.ts.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path

import attrs
import pytest

from offload_ls.analysis.model import Level
from offload_ls.settings import SECTION, Settings, parse_settings

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"
EXTENSION_KEYS = {"server.path", "server.python", "trace.server"}
COMPUTED_KEYS = {"trustedWorkspaces"}  # from VS Code's workspace trust, not a VS Code setting
BOUND_KEYS = {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}

_JSON_TYPES = {int: "integer", float: "number", bool: "boolean", str: "string", dict: "object", list: "array"}


def _package() -> dict:
    return json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))


def _properties() -> dict[str, dict]:
    props = _package()["contributes"]["configuration"]["properties"]
    assert all(name.startswith(f"{SECTION}.") for name in props), sorted(props)
    return {name[len(SECTION) + 1:]: prop for name, prop in props.items()}


def _server_fields() -> dict[str, attrs.Attribute]:
    return {f.name: f for f in attrs.fields(Settings) if f.name not in COMPUTED_KEYS}


def _json_type(tp) -> str | list[str]:
    """The JSON-schema ``type`` of an attrs field type: ``int`` -> ``"integer"``,
    ``str | None`` -> ``["string", "null"]``, ``dict[str, Level]`` -> ``"object"``."""
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = typing.get_args(tp)
        return [_json_type(a) for a in args if a is not type(None)] + (["null"] if type(None) in args else [])
    return _JSON_TYPES[typing.get_origin(tp) or tp]


def _default(field: attrs.Attribute):
    d = field.default
    return d.factory() if isinstance(d, attrs.Factory) else d


def _options(validator) -> list | None:
    """Allowed values from an ``in_`` validator (``None`` added for ``optional(in_)``)."""
    if validator is None:
        return None
    inner = getattr(validator, "validator", None)
    if inner is not None and hasattr(inner, "options"):  # attrs.validators.optional(in_(...))
        return [*inner.options, None]
    if hasattr(validator, "options"):
        return list(validator.options)
    return None


def _bounds(validator) -> dict:
    """JSON-schema bounds from attrs ``ge``/``gt``/``le``/``lt`` validators."""
    if validator is None or not hasattr(validator, "compare_op"):
        return {}
    key = {">=": "minimum", ">": "exclusiveMinimum", "<=": "maximum", "<": "exclusiveMaximum"}[validator.compare_op]
    return {key: validator.bound}


def test_keys_match_the_server_schema_exactly():
    props = _properties()
    assert set(props) == set(_server_fields()) | EXTENSION_KEYS
    assert not COMPUTED_KEYS & set(props)
    assert {f.name for f in attrs.fields(Settings)} - set(_server_fields()) == COMPUTED_KEYS


@pytest.mark.parametrize("key", sorted(_server_fields()))
def test_type_default_enum_and_bounds_agree(key):
    field = _server_fields()[key]
    prop = _properties()[key]
    assert prop["type"] == _json_type(field.type)
    default = _default(field)
    assert prop["default"] == default
    assert type(prop["default"]) in ((int, float) if isinstance(default, float) else (type(default),))
    assert prop.get("enum") == _options(field.validator)
    assert {k: v for k, v in prop.items() if k in BOUND_KEYS} == _bounds(field.validator)


def test_rule_levels_are_the_server_levels():
    rules = _properties()["rules"]
    assert rules["additionalProperties"] == {"type": "string", "enum": [level.value for level in Level]}
    assert [level.value for level in Level] == ["allow", "warn", "deny"]


def test_extension_settings():
    props = _properties()
    assert props["server.path"]["type"] == ["string", "null"] and props["server.path"]["default"] is None
    assert props["server.python"]["type"] == ["string", "null"] and props["server.python"]["default"] is None
    assert props["trace.server"]["enum"] == ["off", "messages", "verbose"]
    assert props["trace.server"]["default"] == "off"


def test_package_defaults_are_the_server_defaults():
    """What the extension sends for an untouched configuration parses to ``Settings()``."""
    flat = {key: _properties()[key]["default"] for key in _server_fields()}
    flat["trustedWorkspaces"] = []
    assert parse_settings(flat) == (Settings(), [])
    # ... also wrapped as in didChangeConfiguration, and with VS Code's nested extension keys
    # (what getConfiguration("offload-ls") holds): the server ignores those.
    nested = {**flat, "server": {"path": None, "python": None}, "trace": {"server": "off"}}
    assert parse_settings({SECTION: nested}) == (Settings(), [])


def test_every_enum_value_is_accepted_by_the_server_and_no_other():
    props = _properties()
    for key in ("gpuTarget", "deviceImage"):
        for value in props[key]["enum"]:
            settings, problems = parse_settings({key: value})
            assert problems == [] and getattr(settings, key) == value
    settings, problems = parse_settings({"gpuTarget": "spirv64-unknown-unknown", "deviceImage": "cpu"})
    assert settings.gpuTarget == "nvptx64-nvidia-cuda" and settings.deviceImage is None
    assert len(problems) == 2


def test_untrusted_workspace_restricts_the_settings_that_name_programs():
    pkg = _package()
    trust = pkg["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited"
    restricted = {name[len(SECTION) + 1:] for name in trust["restrictedConfigurations"]}
    assert restricted == {"server.path", "server.python", "rustc", "cargo"}
    assert restricted <= set(_properties())
