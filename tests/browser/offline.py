"""A browser tab with the network blocked: every request that is not local is aborted and counted.

``Offline(page)`` routes every request of the tab: ``file:``, ``data:`` and
``blob:`` addresses and the loopback servers pass, anything else is aborted
and listed in ``blocked``; every request that failed (aborted, or a local file
that is not there) is listed in ``failed``.  A page that works offline ends
with both lists empty.
"""

from __future__ import annotations

from urllib.parse import urlparse

LOCAL_SCHEMES = ("file", "data", "blob", "about")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class Offline:
    """Block and count the non-local requests of ``page`` (a Playwright ``Page``)."""

    def __init__(self, page) -> None:
        self.blocked: list[str] = []
        self.failed: list[str] = []
        page.route("**/*", self._route)
        page.on("requestfailed", lambda request: self.failed.append(
            f"{request.url[:200]} ({request.failure})"))

    @staticmethod
    def is_local(url: str) -> bool:
        """Whether ``url`` stays on this machine."""
        parsed = urlparse(url)
        return parsed.scheme in LOCAL_SCHEMES or parsed.hostname in LOCAL_HOSTS

    def _route(self, route) -> None:
        url = route.request.url
        if self.is_local(url):
            route.continue_()
        else:
            self.blocked.append(url[:200])
            route.abort()

    def problems(self) -> list[str]:
        """Every blocked and every failed request (empty for a page that works offline)."""
        return [*(f"blocked: {url}" for url in self.blocked), *(f"failed: {url}" for url in self.failed)]
