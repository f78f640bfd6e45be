"""Put the offload-ls server and its dependencies into ``bundled/libs`` for the .vsix.

Builds the wheel of this checkout (``pip wheel --no-deps``), then installs it with its
dependencies for linux-x64 CPython 3.11 into ``bundled/libs`` (``pip install --target
--platform manylinux2014_x86_64 --only-binary=:all:``): the wheels of tree-sitter and
tree-sitter-rust are abi3, so the bundle runs on any CPython >= 3.11 there. Run from
editors/vscode with the interpreter that has pip (``make test`` puts .venv/bin first on PATH):

    python3 scripts/bundle_server.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
REPO = HERE.parents[1]
LIBS = HERE / "bundled" / "libs"


def main() -> int:
    if sys.version_info < (3, 11) or subprocess.run([sys.executable, "-m", "pip", "--version"],
                                                    capture_output=True, timeout=60).returncode != 0:
        print(f"bundle_server.py: {sys.executable} needs to be Python 3.11+ with pip; run `make setup` in the "
              f"repository and put its .venv/bin first on PATH (PATH=/path/to/offload-ls/.venv/bin:$PATH "
              f"npm run package), or install python3-pip", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp, str(REPO)],
                       check=True, timeout=600)
        wheel = next(Path(tmp).glob("offload_ls-*.whl"))
        if LIBS.exists():
            shutil.rmtree(LIBS)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(LIBS),
                        "--platform", "manylinux2014_x86_64", "--python-version", "3.11", "--implementation", "cp",
                        "--only-binary=:all:", "--no-compile", str(wheel)], check=True, timeout=900)
    for junk in [*LIBS.glob("bin"), *LIBS.rglob("__pycache__")]:
        shutil.rmtree(junk, ignore_errors=True)
    size = sum(f.stat().st_size for f in LIBS.rglob("*") if f.is_file())
    print(f"bundled the server into {LIBS} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
