"""The Carapace settings: where the server is and what counts as personal, from
$CARAPACE_URL and the ``carapace`` section of chitin.yaml. Apart from the use cases
(carapace.py) so that reading them, as every write's settings check does
(core/settings.py), loads no credentials code (tempfile, random, shutil)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from chitin.errors import ValidationError
from chitin.model import carapace as rules
from chitin.notices import notice

__all__ = ["Sharing", "sharing_of"]


class Sharing(NamedTuple):
    """Where Carapace is and what counts as personal, from $CARAPACE_URL and the
    ``carapace`` section of chitin.yaml."""

    url: str
    personal_terms: tuple[str, ...]
    timeout: float = rules.DEFAULT_TIMEOUT  # seconds a whole command may take


def sharing_of(config: Mapping[str, Any], env: Mapping[str, str]) -> Sharing:
    """The Carapace settings of chitin.yaml's ``carapace`` section (and $CARAPACE_URL),
    or a ValidationError naming what is wrong."""
    section = config.get("carapace") or {}
    if not isinstance(section, Mapping):
        raise ValidationError(
            "carapace", "chitin.yaml: carapace must be a mapping such as {url: …}"
        )
    unknown = sorted(set(section) - {"url", "personal_tags", "timeout"})
    if unknown:
        raise ValidationError(
            "carapace",
            f"chitin.yaml: unknown carapace setting {unknown[0]!r} "
            "(allowed: url, personal_tags, timeout)",
        )
    url = env.get("CARAPACE_URL") or section.get("url") or rules.DEFAULT_URL
    terms = section.get("personal_tags")
    timeout = env.get("CARAPACE_TIMEOUT") or section.get("timeout")
    return Sharing(
        _checked_url(url),
        rules.DEFAULT_PERSONAL_TAGS if terms is None else rules.check_personal_terms(terms),
        rules.DEFAULT_TIMEOUT if timeout is None else rules.check_timeout(timeout),
    )


def _checked_url(url: object) -> str:
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(
            "url",
            f"the Carapace URL must be an http or https URL such as {rules.DEFAULT_URL}, "
            f"got {url!r} (from $CARAPACE_URL or carapace.url in chitin.yaml)",
        )
    if parts.scheme == "http" and not _loopback(parts.hostname):
        notice(
            f"the Carapace URL {url} is plain http to another machine: "
            "the API key travels unencrypted"
        )
    return str(url).rstrip("/")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
