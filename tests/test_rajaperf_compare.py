"""The tests of benchmarks/rajaperf/compare.py (the RAJAPerf Rust-vs-CUDA comparison: ncu raw-page
CSVs, the offload runtime's copy log and time trace, the CUDA program's transfer lines, nsys copy
summaries), collected by the project's pytest run (testpaths = tests).

benchmarks/ is not a package: benchmarks/rajaperf/test_compare.py is loaded by its path and its
test functions are re-exported here, so both places run the same assertions; that module itself
loads compare.py by path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "rajaperf"


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_tests = _load("rajaperf_test_compare", _BENCH / "test_compare.py")
globals().update({k: v for k, v in vars(_tests).items() if k.startswith("test_")})


def test_loaded_the_benchmark_compare_module():
    assert Path(_tests.compare.__file__).resolve() == _BENCH / "compare.py"
    assert len(_tests.compare.KERNELS) == 13
