"""Profile a bundle (``offload-ls build --bundle DIR``) on a GPU machine that has no Rust
toolchain and no offload-ls install: the same code path as ``offload-ls profile`` after its
build (offload_ls.gpu.profile_run.profile_binary), with only the standard library.

    PYTHONPATH=server python3 benchmarks/gpu_record/profile_bundle.py BUNDLE_DIR OUT_DIR
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from offload_ls.gpu.profile import render
from offload_ls.gpu.profile_run import profile_binary
from offload_ls.toolchain.tools import find_cuda_tool


def main() -> int:
    bundle, out = Path(sys.argv[1]), Path(sys.argv[2])
    rep, prof = asyncio.run(profile_binary(bundle / "run", out_dir=out, gpu_present=True, ncu=find_cuda_tool("ncu"),
                                           progress=lambda m: print(m, file=sys.stderr)))
    print(rep.render())
    print(render(prof))
    (out / "profile.json").write_text(json.dumps({"profile": prof.to_json(), "run": rep.to_json()}, indent=2))
    return 0 if rep.ok and prof.kernels else 1


if __name__ == "__main__":
    raise SystemExit(main())
