"""The kernel's side of a class record: post an attempt to ``stsedu class serve`` (standard library only).

A notebook released with ``--class`` carries the service's address and the student's own token
(nothing else secret); ``STSEDU_CLASS_URL`` and ``STSEDU_CLASS_TOKEN`` in the kernel's
environment do the same for a notebook released without them.  Released with ``--hub``, it
carries no token: the kernel sends its user's JupyterHub token (``JUPYTERHUB_API_TOKEN``).  Each attempt has an id made
here; a post that loses its connection is sent again with the same id, and the service records
it once.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
import uuid

NOT_RECORDED = "not recorded by the class"
"""An attempt's ``class`` in the student's file until the class record has it (then: the service's time)."""
TRIES = 3
TIMEOUT = 5
MAX_REPLY = 64 * 1024


class PostError(Exception):
    """The attempt was not recorded by the class; the message says why, in one line."""


def config(url: str = "", token: str = "") -> tuple[str, str]:
    """(url, token): the given ones, else the environment's (``"", ""`` when there is no class record).
    On JupyterHub the token may be the student's own hub token (``JUPYTERHUB_API_TOKEN``, which the
    hub gives each user's server and its kernels): the class service asks the hub whose it is."""
    url = url or os.environ.get("STSEDU_CLASS_URL", "")
    token = token or os.environ.get("STSEDU_CLASS_TOKEN", "") or os.environ.get("JUPYTERHUB_API_TOKEN", "")
    return (url.rstrip("/"), token) if url and token else ("", "")


def new_attempt_id() -> str:
    return uuid.uuid4().hex


def post(url: str, token: str, payload: dict, tries: int = TRIES, timeout: float = TIMEOUT) -> dict:
    """POST *payload* to ``<url>/attempts``; the service's record of it.  A refusal (the
    service's words) or no connection after *tries* raises :class:`PostError`."""
    data = json.dumps(payload).encode("utf-8")
    problem = ""
    for n in range(tries):
        req = urllib.request.Request(f"{url}/attempts", data=data, method="POST",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read(MAX_REPLY).decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                said = json.loads(e.read(MAX_REPLY).decode("utf-8")).get("error") or e.reason
            except (ValueError, AttributeError, OSError):
                said = e.reason
            if e.code < 500:
                raise PostError(f"the class record refused it: {said}") from None
            problem = str(said)
        except (urllib.error.URLError, OSError, ValueError) as e:   # no connection, dropped, timed out
            problem = str(getattr(e, "reason", None) or e)
        if n + 1 < tries:
            time.sleep(0.2 * 2 ** n)
    raise PostError(f"no answer from the class record at {url} ({problem})")
