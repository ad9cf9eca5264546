"""The one rule for which configured values are secret, used everywhere.

A secret is never written (lockfile, generated code, report, log), is masked where it could be
shown, and is what a served-back check searches for. Secret are: every header value, every
`${VAR}` expansion, a URL's userinfo and credential-looking query parameters, an argument that
follows or carries a credential-looking flag (`--api-key X`, `--token=X`), and any literal whose
name or shape looks like a credential (`API_KEY = ...`, `sk-...`, a JWT). A literal that is not
secret (`TZ = "UTC"`, a data path) is recorded as written, never masked and never searched for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mcpvend.runtime.client.targets import VARIABLE

MASK = "***"
# What names a credential (an env key, a header, a flag, a query parameter), as upper case with `_` for `-`.
_CREDENTIAL_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW(?:OR)?D|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|(?:^|_)PAT$"
)
# A name that says its value is where a credential is, or what kind, not the credential: `--token-file PATH`.
_NOT_A_VALUE = re.compile(r"(?:FILE|PATH|DIR|TYPE|MODE|URL|ENDPOINT|HEADER|NAME|ENV|VAR)$")
_CREDENTIAL_VALUE = re.compile(
    r"(?:sk|pk|rk)[-_]|gh[pousr]_|github_pat_|xox[abprs]-|A[KS]IA[0-9A-Z]{12}|AIza|eyJ|glpat-|npm_|pypi-|hf_"
    r"|(?:Bearer|Basic|Token)\s"
)
_OPAQUE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_\-+/=.]{24,}")


def _key(name: str) -> str:
    return name.rsplit(".", 1)[-1].strip("${}").upper().replace("-", "_")


def looks_like_credential(name: str, value: str) -> bool:
    """Whether a configured value is a credential: by its name (`env.API_KEY`, `${GITHUB_TOKEN}`,
    `headers.Authorization`) or its shape (`sk-...`, `ghp_...`, a JWT, a long opaque token)."""
    return bool(_CREDENTIAL_NAME.search(_key(name)) or _CREDENTIAL_VALUE.match(value) or _OPAQUE.fullmatch(value))


def writable_env(key: str, value: str) -> bool:
    """Whether a lockfile may keep an env value as written: a literal one unless it is a credential by its
    name or shape; a template unless its literal text or a default is shaped like a credential."""
    if VARIABLE.search(value) is None:
        return not looks_like_credential(f"env.{key}", value)
    literal = [VARIABLE.sub(" ", value).strip(), *(m[2] for m in VARIABLE.finditer(value) if m[2])]
    return not any(looks_like_credential("", part) for part in literal if part)


def is_template(value: str) -> bool:
    """Whether a value holds no literal text: one or more `${VAR}` references (defaults aside) and nothing else."""
    return bool(value) and not VARIABLE.sub("", value) and not any(m[2] for m in VARIABLE.finditer(value))


def credential_flag(flag: str) -> bool:
    """Whether an option names a credential (`--api-key`, `--token`, `-p`assword aside): its value is secret."""
    if not flag.startswith("-") or flag in ("-", "--"):
        return False
    key = _key(flag.lstrip("-"))
    return bool(_CREDENTIAL_NAME.search(key)) and not _NOT_A_VALUE.search(key)


def secret_args(args: Sequence[str]) -> list[int]:
    """The indices of arguments that carry a literal credential: the value after a credential flag
    (`--api-key X`), a credential flag's `=` value (`--token=X`), or a value shaped like a credential."""
    found = []
    for i, arg in enumerate(args):
        flag, sep, value = arg.partition("=")
        if sep and flag.startswith("-"):
            secret = credential_flag(flag) or bool(_CREDENTIAL_VALUE.match(value))
        else:
            value = arg
            follows_flag = i > 0 and "=" not in args[i - 1] and credential_flag(args[i - 1])
            secret = (follows_flag and not arg.startswith("-")) or bool(_CREDENTIAL_VALUE.match(arg))
        if secret and value and not is_template(value):
            found.append(i)
    return found


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that carry a literal credential: its userinfo, credential-looking query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all: the config's own check says so
        return []
    found = []
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    if userinfo and not is_template(userinfo):
        found.append("userinfo")
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and not is_template(value) and looks_like_credential(name, value):
            found.append(f"query parameter {name!r}")
    return found


def mask_arg(arg: str) -> str:
    """An argument with its credential shown as `***` (a flag's name stays: `--token=***`)."""
    flag, sep, _ = arg.partition("=")
    return f"{flag}={MASK}" if sep and flag.startswith("-") else MASK


def mask_url(url: str) -> str:
    """A URL with its userinfo and credential-looking query values shown as `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    if at and userinfo and not is_template(userinfo):
        netloc = f"{MASK}@{host}"
    query = "&".join(
        f"{name}={MASK}" if value and not is_template(value) and looks_like_credential(name, value) else pair
        for pair in parts.query.split("&")
        if pair
        for name, _, value in [pair.partition("=")]
    )
    return parts._replace(netloc=netloc, query=query).geturl()


def masked_source(source: Mapping[str, Any]) -> dict[str, Any]:
    """A lockfile's `source` as a report may show it: every literal credential as `***` (headers are names already)."""
    shown = dict(source)
    if isinstance(args := source.get("args"), list) and all(isinstance(a, str) for a in args):
        secret = set(secret_args(args))
        shown["args"] = [mask_arg(a) if i in secret else a for i, a in enumerate(args)]
    if isinstance(url := source.get("url"), str):
        shown["url"] = mask_url(url)
    if isinstance(values := source.get("envValues"), Mapping):
        shown["envValues"] = {k: v if isinstance(v, str) and writable_env(k, v) else MASK for k, v in values.items()}
    if isinstance(token := source.get("token"), str) and not is_template(token):
        shown["token"] = MASK
    return shown
