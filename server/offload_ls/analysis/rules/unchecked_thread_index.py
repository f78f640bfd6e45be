"""unchecked_thread_index: placeholder, being written."""

from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import Rule

RULE = Rule(name="unchecked_thread_index", default_level=Level.WARN, summary="TODO", check=lambda ctx: ())
