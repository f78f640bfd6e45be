"""``python -m offload_ls`` runs the same entry point as the ``offload-ls`` script."""

from offload_ls.cli.main import main

raise SystemExit(main())
