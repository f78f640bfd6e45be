"""Start the offload-ls server bundled in the VS Code extension.

The .vsix carries offload-ls and its dependencies in ``bundled/libs`` (made by
``scripts/bundle_server.py``: pip's linux-x64 CPython 3.11+ wheels, the way Microsoft's
vscode-python-tools-extension-template bundles a tool); any CPython >= 3.11 on the machine
runs it: ``python3 offload_ls_launch.py serve`` (or ``--version``).
"""

import os
import sys

if sys.version_info < (3, 11):
    sys.stderr.write(f"offload-ls needs Python 3.11 or newer; {sys.executable} is {sys.version.split()[0]}\n")
    sys.exit(3)
LIBS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bundled", "libs"))
if not os.path.isdir(os.path.join(LIBS, "offload_ls")):
    sys.stderr.write(f"offload-ls: the bundled server is missing ({LIBS}); reinstall the extension\n")
    sys.exit(3)
sys.path.insert(0, LIBS)
# the build runs pipeline steps as `python -m offload_ls...` (toolchain/build.py): they need it too
os.environ["PYTHONPATH"] = os.pathsep.join([LIBS, *filter(None, [os.environ.get("PYTHONPATH")])])

from offload_ls.cli.main import main  # noqa: E402

sys.exit(main())
