"""The end-to-end pipelines the CLI and the server share: check (lints + the offload
compile's findings), build, run, profile and the assembly listings.

- :mod:`.check` — doctor -> crate -> check plan -> passes -> compiler findings and the
  transfer plan, with the disagreements between source types and compiled map types;
- :mod:`.build` — doctor -> crate (cargo metadata) -> build plan -> passes -> images and
  kernel resources -> optional bundle; :mod:`.freshness` decides what is up to date;
- :mod:`.run` — build if stale -> launch with the runtime log -> run report; profiles;
- :mod:`.assembly` — device listings with source-line maps.
"""

from offload_ls.workflow.assembly import (
           AssemblyOutcome,
           assemble_crate,
           crate_has_offload_kernels,
)
from offload_ls.workflow.build import BuildOutcome, build_crate, default_device_image
from offload_ls.workflow.run import (
           ProfileOutcome,
           RunOutcome,
           profile_crate,
           remote_bundle,
           run_crate,
)

__all__ = ["AssemblyOutcome", "BuildOutcome", "ProfileOutcome", "RunOutcome", "assemble_crate", "build_crate",
           "crate_has_offload_kernels", "default_device_image", "profile_crate", "remote_bundle", "run_crate"]
