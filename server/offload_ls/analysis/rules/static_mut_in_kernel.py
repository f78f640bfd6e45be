"""static_mut_in_kernel: placeholder, being written."""

from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import Rule

RULE = Rule(name="static_mut_in_kernel", default_level=Level.WARN, summary="TODO", check=lambda ctx: ())
