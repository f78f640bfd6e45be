"""Run target tables (gpu/targets.py, workspace/cargo.py): what is accepted, and that nothing a
user writes can become an option or a shell word of ssh/sbatch (issue 14's security notes)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from offload_ls.gpu.glibc import glibc_needed
from offload_ls.gpu.remote import Staged, _home_relative, bundle_entries, bundle_id
from offload_ls.gpu.shell import Shell
from offload_ls.gpu.slurm import Partition, check_partition, sbatch_argv
from offload_ls.gpu.targets import LOCAL, RunTarget, TargetError, arch_of_gres, choose_target, parse_target
from offload_ls.workspace.cargo import load_cargo_config, load_run_targets


def test_a_slurm_table_in_cargo_spelling_and_camel_case():
    t = parse_target("h200", {"kind": "slurm", "host": "alice@login1.example.org", "work-dir": "~/ol",
                              "partition": "gpu", "account": "proj-42", "gres": "gpu:h200:1",
                              "time-limit": "00:10:00", "sbatch-options": ["--qos=debug", "--mem=8G"]}, "here")
    assert (t.kind, t.host, t.work_dir, t.partition, t.account, t.gres, t.time_limit, t.sbatch_options) == (
        "slurm", "alice@login1.example.org", "~/ol", "gpu", "proj-42", "gpu:h200:1", "00:10:00",
        ("--qos=debug", "--mem=8G"))
    same = parse_target("h200", {"kind": "slurm", "workDir": "/scratch/ol", "timeLimit": "10", "gpus": 2}, "here")
    assert (same.work_dir, same.time_limit, same.gpus, same.remote) == ("/scratch/ol", "10", 2, True)
    assert same.describe() == "Slurm partition (default)"
    assert t.describe() == "Slurm partition gpu via alice@login1.example.org"


@pytest.mark.parametrize("table, message", [
    ({"kind": "ssh", "host": "-oProxyCommand=touch /tmp/x"}, "`host`"),
    ({"kind": "ssh", "host": "box; rm -rf ~"}, "`host`"),
    ({"kind": "ssh"}, "an ssh target needs `host`"),
    ({"kind": "slurm", "partition": "gpu --wrap=id"}, "`partition`"),
    ({"kind": "slurm", "account": "$(id)"}, "`account`"),
    ({"kind": "slurm", "gres": "gpu:1 --uid=0"}, "`gres`"),
    ({"kind": "slurm", "time-limit": "10 minutes"}, "`time-limit`"),
    ({"kind": "slurm", "sbatch-options": ["--wrap=rm -rf ~"]}, "`sbatch-options`"),
    ({"kind": "slurm", "sbatch-options": ["--output=/tmp/x"]}, "--output is (or abbreviates) --output"),
    ({"kind": "slurm", "sbatch-options": ["-p gpu"]}, "is not --option or --option=value"),
    # sbatch takes unambiguous prefixes: an abbreviation of an option offload-ls sets is one too
    ({"kind": "slurm", "sbatch-options": ["--outp=/tmp/x-%j"]}, "--outp is (or abbreviates) --output"),
    ({"kind": "slurm", "sbatch-options": ["--parti=cpu"]}, "--parti is (or abbreviates) --partition"),
    ({"kind": "slurm", "sbatch-options": ["--chdi=/tmp"]}, "abbreviates) --chdir"),
    ({"kind": "ssh", "host": "b", "ssh-options": ["ProxyCommand=/tmp/x.sh"]}, "ssh option ProxyCommand is not allowed"),
    ({"kind": "ssh", "host": "b", "ssh-options": ["LocalCommand=/tmp/x.sh"]}, "ssh option LocalCommand is not allowed"),
    ({"kind": "ssh", "host": "box\n"}, "`host`"),
    ({"kind": "slurm", "partition": "gpu\n"}, "`partition`"),
    ({"kind": "ssh", "host": "b", "work-dir": "relative/dir"}, "not a relative one"),
    ({"kind": "slurm", "sbatch-options": "--qos=x"}, "expected a list of strings"),
    ({"kind": "ssh", "host": "b", "ssh-options": ["ProxyCommand=sh -c id"]}, "`ssh-options`"),
    ({"kind": "ssh", "host": "b", "work-dir": "../../etc"}, "`work-dir`"),
    ({"kind": "ssh", "host": "b", "work-dir": "~/a b"}, "`work-dir`"),
    ({"kind": "slurm", "gres": "gpu:1", "gpus": 1}, "give `gres` or `gpus`, not both"),
    ({"kind": "slurm", "gpus": 0}, "whole number of GPUs >= 1"),
    ({"kind": "slurm", "gpus": True}, "whole number of GPUs >= 1"),
    ({"kind": "slurm", "queue-timeout-s": -1}, "seconds > 0"),
    ({"kind": "ssh", "host": "b", "connect-timeout-s": float("inf")}, "finite number of seconds"),
    ({"kind": "slurm", "queue-timeout-s": float("nan")}, "finite number of seconds"),
    ({"kind": "slurm", "sbatch-options": ["--array=0-2"]}, "abbreviates) --array"),
    ({"kind": "slurm", "sbatch-options": ["--uid=65534"]}, "abbreviates) --uid"),
    ({"kind": "slurm", "work-dir": "/a", "workDir": "/b"}, "a second time"),
    ({"kind": "kubernetes"}, "one of local, ssh, slurm"),
    ({"host": "b"}, "`kind` is missing"),
    ({"kind": "slurm", "partiton": "gpu"}, "unknown key `partiton`"),
    ({"kind": "local", "host": "b"}, "a local target takes no other keys"),
    ("slurm", "expected a table"),
])
def test_bad_tables_are_refused_naming_the_key(table, message):
    with pytest.raises(TargetError) as err:
        parse_target("t", table, "Cargo.toml: [package.metadata.offload-ls.run-targets.t]")
    assert message in str(err.value) and str(err.value).startswith("Cargo.toml: [package.metadata")


def test_target_names_are_words():
    with pytest.raises(TargetError, match="target name"):
        parse_target("a b", {"kind": "ssh", "host": "b"}, "x")


def test_ssh_argv_quotes_every_word_and_never_prompts():
    shell = Shell(RunTarget(name="b", kind="ssh", host="gpu-box", ssh_config="/home/u/.ssh/cfg",
                            ssh_options=("Port=2222",), connect_timeout_s=7))
    argv = shell.argv(["sh", "-c", "echo \"$1\"", "sh", "it's; $(x)"])
    assert argv[:10] == ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=7", "-F", "/home/u/.ssh/cfg", "-o",
                         "Port=2222", "--"]
    assert argv[10] == "gpu-box"
    # one command string, each word quoted so the remote shell gives the script these words
    assert shlex.split(argv[11]) == ["sh", "-c", "echo \"$1\"", "sh", "it's; $(x)"]
    assert Shell(RunTarget(name="s", kind="slurm")).argv(["squeue"]) == ["squeue"]  # Slurm here: no ssh


def test_home_relative_work_dirs():
    assert [_home_relative(w) for w in ("~/a/b", "~", "/abs/x")] == ["a/b", ".", "/abs/x"]


def test_sbatch_argv_sets_what_the_run_depends_on():
    t = RunTarget(name="c", kind="slurm", partition="gpu", account="p1", gpus=2, time_limit="10",
                  sbatch_options=("--qos=debug",))
    staged = Staged("abc", "/w/bundles/abc", "/w")
    argv = sbatch_argv(Shell(t), staged, "offload-ls-demo", {"OMP_TARGET_OFFLOAD": "MANDATORY"}, ["fail", "x y"])
    assert argv == ["sbatch", "--parsable", "--job-name=offload-ls-demo", "--no-requeue", "--chdir=/w/bundles/abc",
                    "--output=/w/jobs/job-%j.out", "--error=/w/jobs/job-%j.err",
                    "--export=ALL,OMP_TARGET_OFFLOAD=MANDATORY", "--partition=gpu", "--account=p1", "--gpus=2",
                    "--time=10", "--qos=debug", "/w/bundles/abc/.offload-ls/job.sh", "fail", "x y"]


def test_gres_types_give_archs_and_the_partition_check():
    assert arch_of_gres("gpu:h200:4(S:0-1),gpu:a100:2,shard:8") == ["sm_90", "sm_80"]
    assert arch_of_gres("gpu:4") == [] and arch_of_gres("(null)") == []
    part = Partition("gpu", {"n1": "idle", "n2": "down*"}, ["sm_90"])
    assert part.usable == ["n1"]
    assert check_partition(part, ["sm_90"], "", True) == []
    assert "rebuild with --arch sm_90" in check_partition(part, ["sm_80"], "", True)[0]
    assert check_partition(part, ["sm_80"], "", False) == []  # a host image runs anywhere
    dead = Partition("gpu", {"n1": "drained", "n2": "idle*"}, [])
    assert "has no node that can take a job (n1: drained, n2: idle*)" in check_partition(dead, [], "", True)[0]
    assert "are gfx90a" in check_partition(Partition("mi", {"n": "idle"}), ["sm_90"], "gfx90a", True)[0]


def test_bundle_ids_follow_content_and_names(tmp_path):
    b = tmp_path / "b"
    (b / "lib").mkdir(parents=True)
    (b / "run").write_text("#!/bin/sh\n")
    (b / "run").chmod(0o755)
    (b / "lib" / "libomp.so.22").write_bytes(b"\x7fELF GLIBC_2.34\x00 GLIBC_2.2.5\x00")
    (b / "lib" / "libomp.so").symlink_to("libomp.so.22")
    (b / ".offload-ls-bundle").write_text("marker")
    entries = bundle_entries(b)
    assert [(e.path, e.executable, e.link) for e in entries] == [
        ("lib/libomp.so", False, "libomp.so.22"), ("lib/libomp.so.22", False, ""), ("run", True, "")]
    first = bundle_id(entries)
    (b / "run").write_text("#!/bin/sh\n# changed\n")
    assert bundle_id(bundle_entries(b)) != first
    assert glibc_needed([b / "lib" / "libomp.so.22"]) == "2.34"
    # hashes are cached by (size, mtime): an unchanged bundle is not read again
    import offload_ls.gpu.remote as remote

    calls = []
    real = remote.sha256_file
    remote.sha256_file = lambda p: calls.append(p.name) or real(p)
    try:
        assert bundle_id(bundle_entries(b)) != first and calls == []
        (b / "run").write_text("#!/bin/sh\n# changed again\n")
        bundle_entries(b)
        assert calls == ["run"]
    finally:
        remote.sha256_file = real
    (b / "bad name").write_text("x")
    with pytest.raises(TargetError, match="file names of a bundle"):
        bundle_entries(b)


def test_cargo_toml_targets_and_rule_levels_live_side_by_side(tmp_path):
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.offload-ls]\nrun-target = "site"\n'
        'unsafe_in_kernel = "deny"\n\n[workspace.metadata.offload-ls.run-targets.site]\nkind = "slurm"\n'
        'partition = "gpu"\n')
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "Cargo.toml").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\n\n[package.metadata.offload-ls.run-targets.site]\n'
        'kind = "ssh"\nhost = "box"\n\n[package.metadata.offload-ls.run-targets.other]\nkind = "ssh"\nhost = "o"\n')
    found = load_run_targets(app / "src")
    assert found.problems == [] and sorted(found.tables) == ["other", "site"]
    assert found.default == "site" and found.default_origin.endswith("[workspace.metadata.offload-ls] run-target")
    site = choose_target(found)
    assert (site.kind, site.host) == ("ssh", "box")  # the package's table wins
    assert choose_target(found, "local") is LOCAL
    with pytest.raises(TargetError, match="no run target named 'gone'; defined: local, other, site"):
        choose_target(found, "gone")
    cfg = load_cargo_config(app / "src")
    assert cfg.problems == [] and {k: v.value for k, v in cfg.levels.items()} == {"unsafe_in_kernel": "deny"}
    assert choose_target(load_run_targets(Path("/nonexistent-offload-ls-dir"))) is LOCAL


def test_allowed_ssh_and_sbatch_options_pass():
    t = parse_target("b", {"kind": "ssh", "host": "b", "ssh-options": ["Port=2222", "ProxyJump=bastion.example",
                                                                        "IdentityFile=~/.ssh/id_ed25519"]}, "x")
    assert t.ssh_options == ("Port=2222", "ProxyJump=bastion.example", "IdentityFile=~/.ssh/id_ed25519")
    t = parse_target("s", {"kind": "slurm", "sbatch-options": ["--qos=debug", "--exclusive", "--time-min=5",
                                                              "--gpus-per-node=1"]}, "x")
    assert len(t.sbatch_options) == 4


def test_follower_keeps_exact_bytes_across_polls():
    from offload_ls.gpu.slurm_follow import _Follower, _parse_poll

    lines: list[str] = []
    f = _Follower("out", lines.append)
    f.feed(b"bad:\xff\xfe:end\nsplit:\xf0\x9f", final=False)
    assert lines == ["bad:\ufffd\ufffd:end"] and f.offset == 19
    f.feed(b"\x98\x80 after\nno newline", final=True)
    assert lines == ["bad:\ufffd\ufffd:end", "split:\U0001f600 after", "no newline"] and f.offset == 38
    poll = "B squeue\nRUNNING|0:05|None|n1\nB squeue-status 0\nB file\naGkK\nB file\nB end"
    assert _parse_poll(poll, "B") == ("RUNNING|0:05|None|n1", 0, b"hi\n", b"")
    # a login banner with `|` in it before, a goodbye after: not the job's
    banner = " _   _ |  _ | |_| |\n|_| |_| | |\n"
    assert _parse_poll(banner + poll + "\nSession closed. Bye\n", "B") == ("RUNNING|0:05|None|n1", 0, b"hi\n", b"")
    assert _parse_poll(banner, "B") is None and _parse_poll(poll[:-6], "B") is None  # no whole poll


async def test_sbatch_job_id_after_a_login_banner(tmp_path):
    from offload_ls.gpu.slurm import submit

    script = tmp_path / "sbatch"
    script.write_text("#!/bin/sh\necho 'Welcome to the cluster'\necho 'Maintenance on Friday'\necho '4121;site'\n")
    script.chmod(0o755)
    shell = Shell(RunTarget(name="s", kind="slurm"))
    assert await submit(shell, [str(script)]) == "4121"
    script.write_text("#!/bin/sh\necho \"sbatch: error: option '--wai' is ambiguous\" >&2\n"
                      "echo 'Try \"sbatch --help\" for more information' >&2\nexit 1\n")
    with pytest.raises(TargetError, match="sbatch refused the job: sbatch: error: option '--wai' is ambiguous$"):
        await submit(shell, [str(script)])
