"""The one rule for which configured values are secret, used everywhere.

A secret is never written (lockfile, generated code, report, log), is masked where it could be
shown, and is what a served-back check searches for. Secret are: every header value, every
`${VAR}` expansion, a URL's userinfo and credential-looking query parameters, an argument that
follows or carries a credential-looking flag (`--api-key X`, `--token=X`, `Authorization: X`), and any
literal whose name or shape looks like a credential (`API_KEY = ...`, `sk-...`, a JWT). A literal that
is not secret (`TZ = "UTC"`, a data path, `--token-file PATH`, `--auth-type oauth`) is recorded as
written, never masked and never searched for.

`lock` refuses a literal credential in `args` or `url` (a lockfile would keep it as written); `init`
writes each one as a `${VAR}`. Both name the variable with `LiteralCredential`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import unquote_plus, urlsplit

from mcpvend.runtime.client.targets import VARIABLE

MASK = "***"
# A word of a name (an env key, a header, a flag, a query parameter; upper case, split at `_` and `-`)
# that says its value is a credential. Words, not substrings: `--max-tokens`, `--author`, `MONKEY` name none.
_CREDENTIAL_ENDING = re.compile(r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|COOKIE)$")  # PGPASSWORD
_KEY_PREFIXES = ("", "API", "ACCESS", "SECRET", "PRIVATE", "AUTH", "SESSION", "LICENSE", "MASTER", "SIGNING",
                 "ENCRYPTION", "CLIENT", "APP", "SERVICE")  # fmt: skip
_CREDENTIAL_WORDS = frozenset(
    {"AUTH", "AUTHORIZATION", "PASS", "PAT", "SESSION", "SIG", "SIGNATURE", "JWT"}
    | {prefix + key for prefix in _KEY_PREFIXES for key in ("KEY", "KEYS")}  # APIKEY, as `apiKey` reads
)
# A name that says where a credential is, what kind, or for how long, not the credential: `--token-file PATH`.
_NOT_A_VALUE = re.compile(r"(?:FILE|PATH|DIR|TYPE|MODE|URL|URI|ENDPOINT|HEADER|NAME|ENV|VAR|TIMEOUT|TTL)$")
# Words that choose a mode, not credentials, even under a credential's name: `--auth none`, `AUTH = "oauth"`.
_MODE_WORDS = frozenset(
    {"none", "true", "false", "yes", "no", "on", "off", "auto", "oauth", "oauth2", "basic", "bearer", "required",
     "optional", "enabled", "disabled"}
)  # fmt: skip
_CREDENTIAL_VALUE = re.compile(
    r"(?:sk|pk|rk)[-_]|gh[pousr]_|github_pat_|xox[abprs]-|A[KS]IA[0-9A-Z]{12}|AIza|eyJ|glpat-|npm_|pypi-|hf_"
    r"|(?:Bearer|Basic|Token)\s"
)
_OPAQUE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_\-+/=.]{24,}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_HEADER_ARG = re.compile(r"([A-Za-z][A-Za-z0-9-]*):[ \t]*(\S.*)", re.DOTALL)  # `Authorization: Bearer ...`


def _key(name: str) -> str:
    return name.rsplit(".", 1)[-1].strip("${}").upper().replace("-", "_")


def credential_name(name: str) -> bool:
    """Whether a name (`env.API_KEY`, `${GITHUB_TOKEN}`, `headers.Authorization`, `--api-key`, `access_token`)
    says its value is a credential; one that says where a credential is or what kind (`--token-file`) does not."""
    key = _key(name)
    words = key.split("_")
    named = any(word in _CREDENTIAL_WORDS or _CREDENTIAL_ENDING.search(word) for word in words)
    return named and not _NOT_A_VALUE.search(key)


def _shaped(value: str, opaque: bool) -> bool:
    """A credential by its shape: `sk-...`, `ghp_...`, a JWT, a URL with a password, and (`opaque`) a long token.

    Arguments and URLs are judged without `opaque`: a commit hash or an id there would make `lock` refuse them.
    """
    if _URL.match(value):
        return bool(url_secrets(value))
    return bool(_CREDENTIAL_VALUE.match(value) or (opaque and _OPAQUE.fullmatch(value)))


def _looks(value: str, named: bool, opaque: bool) -> bool:
    return value.strip().lower() not in _MODE_WORDS and (named or _shaped(value, opaque))


def looks_like_credential(name: str, value: str, *, opaque: bool = True) -> bool:
    """Whether a literal value is a credential: by its name (`env.API_KEY`, `${GITHUB_TOKEN}`,
    `headers.Authorization`) or its shape (`sk-...`, `ghp_...`, a JWT, a long opaque token)."""
    return _looks(value, credential_name(name), opaque)


def _holds(value: str, named: bool, opaque: bool) -> bool:
    if not value:
        return False
    if VARIABLE.search(value) is None:
        return _looks(value, named, opaque)
    if _URL.match(value):  # judged part by part: `postgres://app:${DB_PASSWORD}@db/app` holds none
        return bool(url_secrets(value))
    text = VARIABLE.sub(" ", value)
    literal = [text.strip(), *text.split(), *(m[2] for m in VARIABLE.finditer(value) if m[2])]
    return any(_looks(part, False, opaque) for part in literal if part)


def holds_credential(name: str, value: str, *, opaque: bool = True) -> bool:
    """Whether a configured value holds literal credential text: a literal that looks like a credential; a value
    with `${VAR}`s whose literal text or a default is shaped like one (`sk-${SUFFIX}`, `${TOKEN:-ghp_...}`).
    `Bearer ${TOKEN}` holds none: its credential comes from the environment."""
    return _holds(value, credential_name(name), opaque)


def writable_env(key: str, value: str) -> bool:
    """Whether a lockfile may keep an env value as written: unless it holds a literal credential."""
    return not holds_credential(f"env.{key}", value)


def is_template(value: str) -> bool:
    """Whether a value holds no literal text: one or more `${VAR}` references (defaults aside) and nothing else."""
    return bool(value) and not VARIABLE.sub("", value) and not any(m[2] for m in VARIABLE.finditer(value))


def credential_flag(flag: str) -> bool:
    """Whether an option names a credential (`--api-key`, `--token`; short flags aside): its value is secret."""
    return flag.startswith("-") and flag not in ("-", "--") and credential_name(flag)


def variable_name(*parts: str) -> str:
    """An environment variable's name made of a server's name and a key: `DEMO_API_KEY`."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_").upper() or "SECRET"
    return f"_{name}" if name[0].isdigit() else name


class LiteralCredential(NamedTuple):
    """A literal credential in a config value, and the `${VAR}` to write in its place (never the value).

    A NamedTuple, as `_Spot`: this module loads on the pre-commit path (`generate --check`), where making a
    dataclass costs more than the rest of the module."""

    key: str  # "args[3]", "url"
    part: str  # "" for a whole argument; "the user info", "query parameter 'token'", "a path segment"
    why: str  # "after --api-key", "--token=...", "the Authorization header", ""
    variable: str  # "DEMO_API_KEY"
    written: str  # what to write instead: "${DEMO_API_KEY}", "--token=${DEMO_TOKEN}", "token=${DEMO_TOKEN}"

    @property
    def place(self) -> str:
        """Where it is, as the config names it: `args[3] (after --api-key)`, `url: the user info`."""
        return f"{self._where} ({self.why})" if self.why else self._where

    @property
    def _where(self) -> str:
        return f"{self.key}: {self.part}" if self.part else self.key

    def message(self, server: str) -> str:
        why = f" ({self.why})" if self.why else ""
        return (
            f"server '{server}': {self._where} holds a literal credential{why}; write it as"
            f" {json.dumps(self.written, ensure_ascii=False)} and set {self.variable} in the environment"
        )


# --- URLs ------------------------------------------------------------------------------------------

# Called with (part, variable stem, value) for each literal credential of a URL; returns its replacement.
_Replace = Callable[[str, str, str], str]


def _edit_url(url: str, replace: _Replace) -> str | None:
    """`url` with each literal credential replaced: its userinfo, a credential-looking query parameter's value,
    a path segment shaped like a credential. The rest is kept byte for byte; None when it is not a URL."""
    try:
        parts = urlsplit(url)
    except ValueError:  # the config's own check says so
        return None
    userinfo, at, host = parts.netloc.rpartition("@")
    netloc = (
        f"{replace('the user info', 'URL_USERINFO', userinfo)}@{host}"
        if at and _holds(userinfo, True, False)
        else parts.netloc
    )
    pairs = []
    for pair in parts.query.split("&") if parts.query else []:
        name, eq, value = pair.partition("=")
        if eq and _holds(value, credential_name(unquote_plus(name)), False):
            pair = f"{name}={replace(f'query parameter {unquote_plus(name)!r}', unquote_plus(name), value)}"
        pairs.append(pair)
    segments = [
        replace("a path segment", "URL_PATH", s) if _holds(s, False, False) else s for s in parts.path.split("/")
    ]
    edited = parts._replace(netloc=netloc, path="/".join(segments), query="&".join(pairs))
    return edited.geturl() if edited != parts else url


def _url_parts(url: str) -> list[tuple[str, str, str]]:
    """(part, variable stem, value) for each literal credential of a URL."""
    found: list[tuple[str, str, str]] = []

    def keep(part: str, stem: str, value: str) -> str:
        found.append((part, stem, value))
        return value

    _edit_url(url, keep)
    return found


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that carry a literal credential: its userinfo, credential-looking query parameters."""
    return [part for part, _, _ in _url_parts(url)]


def mask_url(url: str) -> str:
    """A URL with its userinfo and credential-looking query values shown as `***`."""
    masked = _edit_url(url, lambda part, stem, value: MASK)
    return MASK if masked is None else masked


def url_secret_values(url: str) -> list[str]:
    """The literal credentials of a URL as sent: the userinfo and its password, query values, path segments."""
    values = []
    for part, _, value in _url_parts(url):
        values.append(value)
        if part == "the user info" and ":" in value:
            values.append(value.partition(":")[2])
    return values


def scrub_url(server: str, url: str, key: str = "url") -> tuple[str, list[LiteralCredential]]:
    """`url` with each literal credential written as a `${VAR}`, and what was replaced."""
    found: list[LiteralCredential] = []

    def variable(part: str, stem: str, value: str) -> str:
        name = variable_name(server, stem)
        written = f"{stem}=${{{name}}}" if part.startswith("query") else f"${{{name}}}"
        found.append(LiteralCredential(key, part, "", name, written))
        return f"${{{name}}}"

    edited = _edit_url(url, variable)
    return (url if edited is None else edited), found


# --- arguments -------------------------------------------------------------------------------------


class _Spot(NamedTuple):
    """Where an argument holds a literal credential: the text kept before it, and what names it."""

    prefix: str  # kept as written: "--token=", "Authorization: ", ""
    value: str  # the credential (a URL: the URL, whose parts the URL rule judges)
    why: str
    stem: str  # what a variable for it is named after


def _arg_spot(args: Sequence[str], i: int) -> _Spot | None:
    arg, previous = args[i], args[i - 1] if i else ""
    flag, sep, rest = arg.partition("=")
    header = _HEADER_ARG.fullmatch(arg)
    if sep and flag.startswith("-") and flag not in ("-", "--"):
        spot, name = _Spot(f"{flag}=", rest, f"{flag}=...", flag), flag
    elif _URL.match(arg):
        spot, name = _Spot("", arg, "", f"arg {i}"), ""
    elif header and credential_name(header[1]):
        spot, name = _Spot(arg[: header.start(2)], header[2], f"the {header[1]} header", header[1]), header[1]
    elif credential_flag(previous) and "=" not in previous and not arg.startswith("-"):
        spot, name = _Spot("", arg, f"after {previous}", previous), previous
    else:
        stem = previous if previous.startswith("-") else f"arg {i}"
        spot, name = _Spot("", arg, "by its shape", stem), ""
    if _URL.match(spot.value):
        return spot if url_secrets(spot.value) else None
    return spot if holds_credential(name, spot.value, opaque=False) else None


def _spots(args: Sequence[str]) -> Iterator[tuple[int, _Spot]]:
    for i in range(len(args)):
        if (spot := _arg_spot(args, i)) is not None:
            yield i, spot


def secret_args(args: Sequence[str]) -> list[int]:
    """The indices of arguments that carry a literal credential: the value after a credential flag
    (`--api-key X`), a credential flag's `=` value (`--token=X`), a credential header (`Authorization: X`),
    a URL's credentials, or a value shaped like a credential."""
    return [i for i, _ in _spots(args)]


def masked_args(args: Sequence[str]) -> list[str]:
    """The arguments with each literal credential shown as `***` (a flag's or header's name stays: `--token=***`)."""
    shown = list(args)
    for i, spot in _spots(args):
        shown[i] = spot.prefix + (mask_url(spot.value) if _URL.match(spot.value) else MASK)
    return shown


def arg_secret_values(args: Sequence[str]) -> dict[str, str]:
    """Each literal credential of the arguments, by the argument that holds it (`args[3]`)."""
    found: dict[str, str] = {}
    for i, spot in _spots(args):
        values = url_secret_values(spot.value) if _URL.match(spot.value) else [spot.value]
        found.update(dict.fromkeys(values, f"args[{i}]"))
    return found


def scrub_args(server: str, args: Sequence[str]) -> tuple[list[str], list[LiteralCredential]]:
    """The arguments with each literal credential written as a `${VAR}`, and what was replaced."""
    written, found = list(args), []
    for i, spot in _spots(args):
        if _URL.match(spot.value):
            url, parts = scrub_url(server, spot.value, f"args[{i}]")
            written[i] = spot.prefix + url
            found += parts
            continue
        name = variable_name(server, spot.stem)
        written[i] = f"{spot.prefix}${{{name}}}"
        found.append(LiteralCredential(f"args[{i}]", "", spot.why, name, written[i]))
    return written, found


def masked_source(source: Mapping[str, Any]) -> dict[str, Any]:
    """A lockfile's `source` as a report may show it: every literal credential as `***` (headers are names already)."""
    shown = dict(source)
    if isinstance(args := source.get("args"), list) and all(isinstance(a, str) for a in args):
        shown["args"] = masked_args(args)
    if isinstance(url := source.get("url"), str):
        shown["url"] = mask_url(url)
    if isinstance(values := source.get("envValues"), Mapping):
        shown["envValues"] = {k: v if isinstance(v, str) and writable_env(k, v) else MASK for k, v in values.items()}
    if isinstance(token := source.get("token"), str) and not is_template(token):
        shown["token"] = MASK
    return shown
