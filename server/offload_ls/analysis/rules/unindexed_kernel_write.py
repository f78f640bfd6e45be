"""unindexed_kernel_write: placeholder, being written."""

from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import Rule

RULE = Rule(name="unindexed_kernel_write", default_level=Level.WARN, summary="TODO", check=lambda ctx: ())
