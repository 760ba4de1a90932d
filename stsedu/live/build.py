"""Build the real control plane (etcd, kube-apiserver, kube-controller-manager, kubectl).

The versions are pinned by the Go module in ``stsedu/live/controlplane/`` (its ``go.mod``
lists the four commands as ``tool`` directives). The binaries go to a cache folder outside
the repository, ``~/.cache/stsedu-live/<key>/`` (``$STSEDU_LIVE_CACHE`` overrides the base),
where ``<key>`` is a hash of go.mod, go.sum and the build flags, so a change of version builds
afresh and reruns reuse the cache. The first build takes about 9 minutes on two cores.

The same module builds the ``current`` upstream oracle of the test suite
(``tests/upstream_oracle.py``) with the same command (:func:`go_build_command`), so the two share
every compiled package in Go's build cache: what the control plane compiled, the oracle links.

:func:`kubectl_path` is for other parts of the kit that want the real kubectl: it returns
the path of a built one, or None, and never builds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

MODULE = Path(__file__).resolve().parent / "controlplane"

COMMANDS = {
    # binary name -> Go package (all four are `tool` directives in controlplane/go.mod)
    "etcd": "go.etcd.io/etcd/server/v3",
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
    "kubectl": "k8s.io/kubernetes/cmd/kubectl",
}

KUBERNETES_VERSION = "v1.37.2"
ETCD_VERSION = "v3.7.0"

# What Kubernetes' own release build stamps with -X (hack/lib/version.sh): without it
# `kubectl version` reports v0.0.0-master+$Format:%H$ and the skew check fails. -s -w leaves out
# the symbol table and DWARF, which nothing here reads, and shortens each link.
_STAMPED = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")


def _ldflags() -> str:
    major, minor = KUBERNETES_VERSION.lstrip("v").split(".")[:2]
    stamps = [f"-X {pkg}.{var}={value}" for pkg in _STAMPED for var, value in (
        ("gitVersion", KUBERNETES_VERSION), ("gitMajor", major), ("gitMinor", minor),
        ("gitTreeState", "clean"))]
    return " ".join(["-s", "-w", *stamps])


def go_build_command(go: str, output: str, package: str = ".") -> list[str]:
    """The one `go build` line of the kit's Go binaries (the control plane and the oracles): the
    same flags everywhere, so Go's build cache serves a package compiled for one to the others."""
    return [go, "build", "-p", "2", "-ldflags", _ldflags(), "-o", output, package]


class LiveUnavailable(Exception):
    """Go is missing, a build failed or the control plane cannot start; the message says why, in one line."""


# go_binary and cache_folder are the kit's one way to find Go and a build cache; the test
# suite's upstream oracle (tests/upstream_oracle.py) loads this file by path for them, as
# .ci/run does, so it must need nothing but the standard library.

def go_binary() -> str | None:
    """The Go command: ``go`` on PATH, else a standard install folder; None without Go."""
    found = shutil.which("go")
    if found:
        return found
    for candidate in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def cache_folder(env: str, name: str) -> Path:
    """A build cache folder: ``$env`` if set, else *name* in the user's cache folder
    (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    base = os.environ.get(env) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), name)
    return Path(base)


def cache_base() -> Path:
    return cache_folder("STSEDU_LIVE_CACHE", "stsedu-live")


def source_key() -> str:
    h = hashlib.sha256()
    for f in ("go.mod", "go.sum"):
        h.update((MODULE / f).read_bytes())
    h.update(_ldflags().encode())
    return h.hexdigest()[:16]


def bin_dir() -> Path:
    return cache_base() / source_key()


def binary(name: str) -> Path:
    return bin_dir() / name


def built() -> bool:
    return all(binary(n).exists() for n in COMMANDS)


def kubectl_path() -> str | None:
    """The path of the real kubectl built from the pinned k8s.io/kubernetes, or None if it is not built."""
    try:
        path = binary("kubectl")
    except OSError:
        return None
    return str(path) if path.exists() and os.access(path, os.X_OK) else None


def missing_reason() -> str | None:
    """None when every binary is built; otherwise one line saying what is missing and how to build it."""
    if built():
        return None
    if go_binary() is None:
        return ("the live control plane is not built and Go is not installed "
                "(need go >= 1.26 on PATH or /usr/local/go/bin/go; then run `stsedu live build`)")
    return f"the live control plane is not built yet: run `stsedu live build` (about 9 minutes the first time on two cores; cache {bin_dir()})"


def build(names=None, log=None) -> Path:
    """Build the missing binaries (all four by default) into :func:`bin_dir`; return that folder.

    Each binary is written to ``NAME.partial-PID`` and renamed when complete, so an interrupted
    build leaves nothing that looks finished. Raise :class:`LiveUnavailable` without Go or
    when a build fails.
    """
    target = bin_dir()
    todo = [n for n in (names or COMMANDS) if not (target / n).exists()]
    if not todo:
        return target
    go = go_binary()
    if go is None:
        raise LiveUnavailable("Go is not installed (need go >= 1.26 on PATH or /usr/local/go/bin/go)")
    target.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-mod=mod")
    with tempfile.TemporaryDirectory(prefix="stsedu-live-build-") as tmp:
        for f in ("go.mod", "go.sum", "doc.go"):
            shutil.copy(MODULE / f, tmp)
        for name in todo:
            if log:
                log(f"building {name} ({COMMANDS[name]}) ...")
            partial = target / f"{name}.partial-{os.getpid()}"  # two builds at once never share a file
            cmd = go_build_command(go, str(partial), COMMANDS[name])
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
                raise LiveUnavailable(f"building {name} failed: " + " | ".join(tail))
            os.replace(partial, target / name)
    return target
