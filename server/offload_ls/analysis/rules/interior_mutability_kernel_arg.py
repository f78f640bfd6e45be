"""interior_mutability_kernel_arg: placeholder, being written."""

from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import Rule

RULE = Rule(name="interior_mutability_kernel_arg", default_level=Level.WARN, summary="TODO", check=lambda ctx: ())
