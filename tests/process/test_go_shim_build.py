"""A Go shim's build (fixtures/process/goshim.py, under the locks of fixtures/process/shims.py): cached
by the digest of go.mod, go.sum and the .go files, built with -mod=readonly on a copy of the sources,
and every failure a ShimBuildError saying why (no `go`, go's last lines)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from fixtures.process import goshim, shims

needs_go = pytest.mark.skipif(goshim.go_binary() is None, reason="the build runs the host's Go toolchain")


def module(tmp_path, main_go: str, go_sum: str = "") -> tuple[str, object]:
    d = tmp_path / "src" / "shims" / "tiny-go"
    d.mkdir(parents=True)
    (d / "go.mod").write_text("module tiny\n\ngo 1.22\n")
    (d / "go.sum").write_text(go_sum)
    (d / "main.go").write_text(main_go)
    return "shims/tiny-go", d


def test_the_digest_is_of_go_mod_go_sum_and_the_go_files_only(tmp_path):
    _, d = module(tmp_path, "package main\n\nfunc main() {}\n")
    first = goshim.digest(d)
    (d / "README.md").write_text("notes")
    assert goshim.digest(d) == first
    (d / "main.go").write_text("package main\n\nfunc main() { println() }\n")
    second = goshim.digest(d)
    assert second != first
    (d / "go.sum").write_text("x v1.0.0 h1:x=\n")
    assert goshim.digest(d) != second
    assert goshim.is_go_shim(d) and not goshim.is_go_shim(tmp_path)


def test_the_build_runs_readonly_with_the_installed_toolchain(monkeypatch):
    monkeypatch.setenv("GOFLAGS", "-mod=mod -buildvcs=true -trimpath")
    env = goshim.build_env()
    assert env["GOFLAGS"].split() == ["-trimpath", "-mod=readonly", "-buildvcs=false"]
    assert env["GOTOOLCHAIN"] == "local"


def test_no_go_is_a_shim_build_error_saying_so(tmp_path, monkeypatch):
    monkeypatch.setenv("MQCONFORM_STATE", str(tmp_path))
    monkeypatch.setattr(goshim, "go_binary", lambda: None)
    with pytest.raises(shims.ShimBuildError, match="building shims/cloudevents-go: go is not installed"):
        shims.build("shims/cloudevents-go")
    assert not any((tmp_path / "shims").rglob("shim"))


@needs_go
def test_a_failed_build_leaves_nothing_and_quotes_go(tmp_path):
    rel, d = module(tmp_path, "package main\n\nfunc main() { undefinedThing() }\n")
    out = tmp_path / "cache" / "tiny-go" / goshim.digest(d)
    with pytest.raises(shims.ShimBuildError, match=r"building shims/tiny-go: go build exited 1: .*undefined: undefinedThing"):
        goshim.build(rel, d, out, 120, shims.ShimBuildError)
    assert not out.exists() and not out.parent.exists()                  # nothing kept
    assert sorted(p.name for p in d.iterdir()) == ["go.mod", "go.sum", "main.go"]


@needs_go
def test_a_module_go_sum_does_not_pin_fails_the_build(tmp_path):
    rel, d = module(tmp_path, 'package main\n\nimport _ "github.com/google/uuid"\n\nfunc main() {}\n')
    (d / "go.mod").write_text("module tiny\n\ngo 1.22\n\nrequire github.com/google/uuid v1.1.1\n")
    out = tmp_path / "cache" / "tiny-go" / goshim.digest(d)
    with pytest.raises(shims.ShimBuildError, match=r"go build exited 1: .*missing go.sum entry"):
        goshim.build(rel, d, out, 120, shims.ShimBuildError)
    assert not out.exists()


@needs_go
def test_a_built_shim_is_cached_and_never_built_twice(tmp_path, monkeypatch):
    rel, d = module(tmp_path, 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("tiny") }\n')
    out = tmp_path / "cache" / "tiny-go" / goshim.digest(d)
    assert goshim.build(rel, d, out, 120, shims.ShimBuildError) == out
    assert (out / "ready").read_text().strip() == goshim.digest(d)
    assert subprocess.run([str(out / "shim")], capture_output=True, text=True, check=True).stdout == "tiny\n"

    def no_second_build(*a, **k):
        raise AssertionError("built twice")
    monkeypatch.setattr(goshim.subprocess, "run", no_second_build)
    monkeypatch.setattr(goshim.shutil, "copy2", no_second_build)
    assert goshim.build(rel, d, out, 120, shims.ShimBuildError) == out


@needs_go
def test_the_declared_go_shim_builds_into_the_state_dir(tmp_path, monkeypatch):
    """What `python -m fixtures.process.shims cloudevents-go` (and the main job's shim build) does."""
    monkeypatch.setenv("MQCONFORM_STATE", str(tmp_path))
    built = dict(shims.build_all(["cloudevents-go"]))
    out = built["shims/cloudevents-go"]
    assert out == tmp_path / "shims" / "cloudevents-go" / goshim.digest(shims.ROOT / "shims" / "cloudevents-go")
    assert (out / "shim").is_file() and shutil.which(str(out / "shim"))
    assert shims.go_command("shims/cloudevents-go") == [str(out / "shim")]
