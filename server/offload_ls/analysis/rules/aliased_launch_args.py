"""aliased_launch_args: placeholder, being written."""

from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import Rule

RULE = Rule(name="aliased_launch_args", default_level=Level.WARN, summary="TODO", check=lambda ctx: ())
