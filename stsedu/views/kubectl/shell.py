"""The tutorial's steps inside containers, simulated: ``exec … -- hostname``, ``cat``, ``sh -c 'echo … >
FILE'``, ``curl http://localhost/``, and ``run -i --tty --image busybox:1.28 dns-test --restart=Never
--rm -- nslookup web-0.nginx``.

**Files.**  :class:`Files` is a tiny file store.  A path under one of the container's
``volumeMounts`` that comes from a claim lives with that *claim* (keyed by the claim's uid), so
it survives the pod's deletion and comes back when the controller re-creates the pod with the
same claim; a claim deleted and made again starts empty, like a new volume.  Any other path
lives with the pod (its uid) and is gone with it, like a container's own filesystem.
``/etc/hostname`` holds the pod's hostname.

**Shell.**  ``sh -c`` runs a small subset of a POSIX shell: commands separated by ``;``, ``&&``
or ``||``, ``$(hostname)`` substitution, ``echo`` with ``>``/``>>`` redirection, ``cat``,
``hostname``, ``ls``, ``curl`` (``http://localhost/`` is the container's nginx, serving
``/usr/share/nginx/html``).  Anything else fails as a container would: ``executable file not found``.

**DNS.**  ``nslookup`` answers from the kit's DNS model (:func:`stsedu.views.identity_tables.resolves`): a pod's
name ``<pod>.<service>`` (with the search domains of a pod in the namespace) resolves while the
pod is Running and Ready behind its headless Service, to the IP ``get pods -o wide`` shows; the
Service's name resolves to all of them.  The output is busybox 1.28's.
"""

from __future__ import annotations

import re
import shlex

from .flags import MAX_OUTPUT, KubectlError, Parsed, UsageError

DNS_SERVER = "10.96.0.10"
NGINX_ROOT = "/usr/share/nginx/html"
MAX_FILE = 1_000_000
MAX_FILES = 10_000
FORBIDDEN = ("<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1>"
             "</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


class Files:
    """Files written inside containers: ``{owner uid: {path: text}}`` (owner: a claim or a pod)."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, str]] = {}
        self.writes = 0
        """How many writes were made (a check that a command changed nothing)."""

    def read(self, owner: str, path: str) -> str | None:
        return self.data.get(owner, {}).get(path)

    def write(self, owner: str, path: str, text: str, append: bool = False) -> None:
        files = self.data.setdefault(owner, {})
        new = (files.get(path, "") if append else "") + text
        if len(new) > MAX_FILE or sum(len(f) for f in self.data.values()) > MAX_FILES:
            raise _Fail(f"sh: write error: No space left on device", 1)
        files[path] = new
        self.writes += 1

    def listing(self, owner: str, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted({p[len(prefix):].split("/")[0] for p in self.data.get(owner, {}) if p.startswith(prefix)})


class _Fail(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class _Container:
    """One container of one pod, as ``exec`` sees it."""

    def __init__(self, session, pod, container: dict) -> None:
        self.s, self.pod, self.c = session, pod, container
        self.cluster = session.cluster

    def owner_of(self, path: str) -> tuple[str, str]:
        """The store that holds *path*: the claim mounted above it, or the pod."""
        path = "/" + path.strip("/")
        volumes = {v.get("name"): (v.get("persistentVolumeClaim") or {}).get("claimName")
                   for v in self.pod.spec.get("volumes") or ()}
        for vm in sorted(self.c.get("volumeMounts") or (), key=lambda m: -len(m.get("mountPath", ""))):
            mount = "/" + str(vm.get("mountPath", "")).strip("/")
            if path == mount or path.startswith(mount + "/"):
                claim = volumes.get(vm.get("name"))
                obj = self.cluster.store.get("PersistentVolumeClaim", self.pod.namespace, claim) if claim else None
                if obj is not None:
                    return f"claim:{obj.uid}", path
        return f"pod:{self.pod.uid}", path

    def hostname(self) -> str:
        return self.pod.spec.get("hostname") or self.pod.name

    def read(self, path: str) -> str | None:
        if "/" + path.strip("/") == "/etc/hostname":
            return self.hostname() + "\n"
        owner, p = self.owner_of(path)
        return self.s.files.read(owner, p)

    def write(self, path: str, text: str, append: bool) -> None:
        if "/" + path.strip("/") in ("/etc/hostname",):
            raise _Fail(f"sh: can't create {path}: Read-only file system", 1)
        owner, p = self.owner_of(path)
        self.s.files.write(owner, p, text, append)

    # ------------------------------------------------------------------ commands
    def run(self, argv: list[str]) -> tuple[str, int]:
        if not argv:
            return "", 0
        name, args = argv[0], argv[1:]
        if name == "hostname":
            return self.hostname() + "\n", 0
        if name == "cat":
            out, size = [], 0
            for a in args:
                text = self.read(a)
                if text is None:
                    return "".join(out) + f"cat: can't open '{a}': No such file or directory\n", 1
                out.append(text)
                size += len(text)
                if size > MAX_OUTPUT:  # more than the session prints: it cuts the output here
                    break
            return "".join(out), 0
        if name == "echo":
            return " ".join(args) + "\n", 0
        if name == "ls":
            folder = args[0] if args else "/"
            owner, p = self.owner_of(folder)
            names = self.s.files.listing(owner, p)
            return "".join(n + "\n" for n in names), 0
        if name == "curl":
            return self.curl(args)
        if name in ("sh", "bash", "/bin/sh", "/bin/bash"):
            if len(args) >= 2 and args[0] == "-c":
                return self.shell(args[1])
            raise _Fail("stsedu cannot open an interactive shell; give the command, e.g. "
                        "kubectl exec web-0 -- sh -c 'hostname'", 1)
        raise _Fail(f'OCI runtime exec failed: exec failed: unable to start container process: exec: "{name}": '
                    "executable file not found in $PATH: unknown\ncommand terminated with exit code 126", 126)

    def curl(self, args: list[str]) -> tuple[str, int]:
        urls = [a for a in args if not a.startswith("-")]
        if not urls:
            return "curl: try 'curl --help' or 'curl --manual' for more information\n", 2
        m = re.fullmatch(r"(?:http://)?(localhost|127\.0\.0\.1)(?::80)?(/[^?#]*)?", urls[0])
        if not m:
            return f"curl: (6) Could not resolve host: {urls[0]}\n", 6
        path = m.group(2) or "/"
        if path.endswith("/"):
            path += "index.html"
        text = self.read(NGINX_ROOT + path)
        if text is None:
            if path.endswith("/index.html"):
                return FORBIDDEN, 0
            return FORBIDDEN.replace("403 Forbidden", "404 Not Found"), 0
        return text, 0

    def shell(self, script: str) -> tuple[str, int]:
        """``sh -c SCRIPT`` for the subset in the module's docstring."""
        if len(script) > 10_000:
            raise _Fail("sh: script too long for the simulated shell", 2)
        out, status, size = [], 0, 0
        for op, part in _split_script(script):
            if (op == "&&" and status != 0) or (op == "||" and status == 0):
                continue
            part = re.sub(r"\$\(hostname\)|`hostname`", self.hostname(), part)
            redirect = re.search(r"(>>?)\s*(\S+)\s*$", part)
            try:
                argv = shlex.split(part[:redirect.start()] if redirect else part)
            except ValueError:
                raise _Fail(f"sh: syntax error: unterminated quoted string", 2) from None
            text, status = self.run(argv)
            if redirect:
                self.write(redirect.group(2).strip("'\""), text, append=redirect.group(1) == ">>")
            else:
                out.append(text)
                size += len(text)
                if size > MAX_OUTPUT:  # the session cuts the output here; the rest would not show
                    break
        return "".join(out), status


def _split_script(script: str) -> list[tuple[str, str]]:
    """The commands of a script with the operator before each (``;``, ``&&``, ``||``), quotes respected."""
    parts, cur, op, i, quote = [], [], ";", 0, ""
    while i < len(script):
        ch = script[i]
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif script.startswith(("&&", "||"), i):
            parts.append((op, "".join(cur).strip()))
            op, cur = script[i:i + 2], []
            i += 1
        elif ch in ";\n":
            parts.append((op, "".join(cur).strip()))
            op, cur = ";", []
        else:
            cur.append(ch)
        i += 1
    parts.append((op, "".join(cur).strip()))
    return [(o, p) for o, p in parts if p]


# ===================================================================== exec

def exec_(s, p: Parsed, stdin, res) -> str:
    if len(p.args) > 1:
        raise UsageError("exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead",
                         "kubectl exec")
    if not p.args:
        raise KubectlError("error: pod, type/name or --filename must be specified")
    if not p.after_dash:
        raise KubectlError("error: you must specify at least one command for the container")
    name = p.args[0]
    if "/" in name:
        t, _, name = name.partition("/")
        if t not in ("pod", "pods", "po"):
            raise KubectlError("error: stsedu execs into pods only: kubectl exec web-0 -- hostname")
    pod = s.cluster.store.get("Pod", p["namespace"], name)
    if pod is None:
        raise KubectlError(f'Error from server (NotFound): pods "{name}" not found')
    if pod.phase in ("Succeeded", "Failed"):
        raise KubectlError(f"error: cannot exec into a container in a completed pod; current phase is {pod.phase}")
    containers = pod.spec.get("containers") or [{}]
    c = containers[0]
    if p["container"]:
        c = next((x for x in containers if x.get("name") == p["container"]), None)
        if c is None:
            raise KubectlError(f"error: container {p['container']} is not valid for pod {name} out of: "
                               + ", ".join(x.get("name", "") for x in containers))
    if pod.phase != "Running":
        raise KubectlError(f'error: unable to upgrade connection: container not found ("{c.get("name", "")}")')
    if p["stdin"] and not p["tty"]:
        pass
    try:
        out, status = _Container(s, pod, c).run(list(p.after_dash))
    except _Fail as f:
        raise KubectlError(f.message if f.status != 126 else f"error: Internal error occurred: {f.message}",
                           status=f.status) from None
    if status:
        res.stdout += out
        raise KubectlError(f"command terminated with exit code {status}", status=status)
    return out


# ===================================================================== run (dns-test)

def run(s, p: Parsed, stdin, res) -> str:
    if not p.args:
        raise KubectlError("error: NAME is required for run\nSee 'kubectl run -h' for help and examples")
    name = p.args[0]
    if not p["image"]:
        raise KubectlError('error: required flag(s) "image" not set')  # cobra's MarkFlagRequired
    if not (p["rm"] and p["stdin"]):
        raise KubectlError("error: stsedu runs a throw-away pod only, as the tutorial does: "
                           "kubectl run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-0.nginx")
    if p["restart"] != "Never":
        raise KubectlError(f"error: stsedu runs a throw-away pod with --restart=Never only, not {p['restart']}")
    argv = list(p.args[1:]) + list(p.after_dash)
    if not argv or argv[0] in ("sh", "/bin/sh", "bash"):
        raise KubectlError("error: stsedu cannot open an interactive shell; give the command after --, e.g. "
                           "kubectl run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- "
                           "nslookup web-0.nginx")
    if s.cluster.store.get("Pod", p["namespace"], name) is not None:
        raise KubectlError(f'Error from server (AlreadyExists): pods "{name}" already exists')
    if argv[0] != "nslookup" or len(argv) != 2:
        raise KubectlError(f"error: stsedu's {p['image']} pod runs nslookup NAME only (the tutorial's DNS check)")
    text, ok = nslookup(s.cluster, argv[1], p["namespace"])
    text += f'pod "{name}" deleted from {p["namespace"]} namespace\n'
    if not ok:
        res.stdout += text
        raise KubectlError(f"pod {p['namespace']}/{name} terminated (Error)")
    return text


def nslookup(cluster, name: str, namespace: str) -> tuple[str, bool]:
    """busybox 1.28's ``nslookup NAME`` from a pod in *namespace*, answered by the kit's DNS model."""
    from ..identity_tables import resolves
    from .printers import ip_table
    domain = cluster.cluster_domain
    head = f"Server:    {DNS_SERVER}\nAddress 1: {DNS_SERVER} kube-dns.kube-system.svc.{domain}\n\n"
    ips = ip_table(cluster)
    fqdn = name.rstrip(".")
    # a pod's resolv.conf: search <ns>.svc.<domain> svc.<domain> <domain>; an absolute name as it is
    candidates = [fqdn] if name.endswith(".") else [fqdn + sfx for sfx in (
        f".{namespace}.svc.{domain}", f".svc.{domain}", f".{domain}")] + [fqdn]
    dom = re.escape(domain)
    for candidate in candidates:
        m = re.fullmatch(rf"([a-z0-9-]+)\.([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.{dom}", candidate)
        if m:  # <pod hostname>.<service>.<namespace>.svc.<domain>
            pod = cluster.store.get("Pod", m.group(3), m.group(1))
            svc = cluster.store.get("Service", m.group(3), m.group(2))
            if pod is not None and resolves(pod, svc) and ips.get(pod.name):
                return head + f"Name:      {name}\nAddress 1: {ips[pod.name]}\n", True
        m = re.fullmatch(rf"([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.{dom}", candidate)
        if m:  # <service>.<namespace>.svc.<domain>: a headless Service answers with its ready pods
            svc = cluster.store.get("Service", m.group(2), m.group(1))
            if svc is not None and svc.headless:
                pods = sorted((p for p in cluster.store.list("Pod", m.group(2))
                               if resolves(p, svc) and ips.get(p.name)), key=lambda p: p.name)
                if pods:
                    lines = "".join(f"Address {i}: {ips[p.name]} {p.spec.get('hostname', p.name)}.{svc.name}."
                                    f"{svc.namespace}.svc.{domain}\n" for i, p in enumerate(pods, 1))
                    return head + f"Name:      {name}\n" + lines, True
    return head + f"nslookup: can't resolve '{name}'\n", False
