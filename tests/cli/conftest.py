"""Fixtures for the CLI tests: run ``main([...])`` in-process and capture its output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import FIXTURES

from offload_ls.cli.main import main


class Cli:
    """Runs the CLI in-process; a call returns (exit status, stdout, stderr)."""

    def __init__(self, capsys) -> None:
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        rc = main(list(argv))
        out, err = self.capsys.readouterr()
        return rc, out, err


@pytest.fixture
def cli(capsys) -> Cli:
    return Cli(capsys)


@pytest.fixture
def in_fixtures(monkeypatch) -> Path:
    """Run with ``tests/cli/fixtures`` as the current directory."""
    monkeypatch.chdir(FIXTURES)
    return FIXTURES


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    """A scratch copy of the fixture crates, made the current directory."""
    dest = tmp_path / "work"
    shutil.copytree(FIXTURES, dest)
    monkeypatch.chdir(dest)
    return dest
