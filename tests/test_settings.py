"""The settings schema: strict JSON types, one bad value never discards the rest."""

import pytest

from offload_ls.analysis.model import Level
from offload_ls.settings import Settings, parse_settings


@pytest.mark.parametrize("raw, problem", [
    ({"trustedWorkspaces": "x"}, "offload-ls.trustedWorkspaces: invalid value 'x' (expected a list, got str)"),
    ({"trustedWorkspaces": [1]}, "offload-ls.trustedWorkspaces: invalid value [1] (expected a list of strings)"),
    ({"trustedWorkspaces": {}}, "offload-ls.trustedWorkspaces: invalid value {} (expected a list, got dict)"),
    ({"checkOnSave": "false"}, "offload-ls.checkOnSave: invalid value 'false' (expected true or false, got str)"),
    ({"debounceMs": 1.5}, "offload-ls.debounceMs: invalid value 1.5 (expected an integer, got float)"),
    ({"debounceMs": -5}, "offload-ls.debounceMs: invalid value -5 ('debounceMs' must be >= 0: -5)"),
    ({"gpuArch": 5}, "offload-ls.gpuArch: invalid value 5 (expected a string, got int)"),
    ({"deviceImage": "gpu2"}, "offload-ls.deviceImage: invalid value 'gpu2' ('deviceImage' must be in "
                              "('gpu', 'host', 'both') (got 'gpu2'))"),
])
def test_bad_values_are_reported_and_keep_the_default(raw, problem):
    settings, problems = parse_settings(raw)
    assert problems == [problem]
    assert settings == Settings()


def test_good_values_and_section_wrapper():
    settings, problems = parse_settings({"offload-ls": {
        "trustedWorkspaces": ["/w"], "checkOnSave": False, "device": None, "compileTimeoutS": 10,
        "rules": {"raw_pointer_kernel_param": "deny"}, "unknownKey": 1}})
    assert problems == []
    assert (settings.trustedWorkspaces, settings.checkOnSave, settings.device, settings.compileTimeoutS) == \
        (["/w"], False, None, 10)
    assert settings.rules == {"raw_pointer_kernel_param": Level.DENY}


def test_trust_is_by_folder(tmp_path):
    inside = tmp_path / "ws" / "crate"
    inside.mkdir(parents=True)
    s, _ = parse_settings({"trustedWorkspaces": [str(tmp_path / "ws")]})
    assert s.trusts(inside) and s.trusts(tmp_path / "ws")
    assert not s.trusts(tmp_path) and not s.trusts(tmp_path / "wsx")
    assert parse_settings({"trustedWorkspaces": ["*"]})[0].trusts(tmp_path)
    assert not Settings().trusts(tmp_path)
