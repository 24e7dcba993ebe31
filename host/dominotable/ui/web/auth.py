"""Who may reach the table page and who may drive it, request by request (the rules are
access.py's): every request must name this table in its Host and keep the token out of its
address; one that changes something (or opens a WebSocket) must come from the table's own page
and, unless a WebSocket, be JSON. Controls come from this machine, or with the token: a header, or
the cookie the login page sets."""

from __future__ import annotations

import json

from aiohttp import web

from dominotable.ui.web.access import COOKIE, LOGIN_DAYS, TOKEN_HEADER, Access
from dominotable.web.guard import Refused, body, is_loopback

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _local(request: web.Request) -> str | None:
    sock = request.transport.get_extra_info("sockname") if request.transport is not None else None
    return sock[0] if isinstance(sock, tuple) else None


class Auth:
    def __init__(self, access: Access):
        self.access = access

    @web.middleware
    async def check(self, request: web.Request, handler) -> web.StreamResponse:
        """Every request: the Host checked, the token kept out of the address, a request that
        changes something (or opens a WebSocket) checked for its Origin and its type."""
        local = _local(request)
        host = request.headers.get("Host")
        if not self.access.host_ok(host, local):
            raise Refused(f"this table answers to its own addresses only, not to Host {host!r} "
                          "(a name of your own for it goes in [web] hosts)", 403)
        try:
            request.headers.get(TOKEN_HEADER, "").encode("utf-8")
        except UnicodeEncodeError:
            raise Refused(f"the {TOKEN_HEADER} header is not UTF-8 text") from None
        if "token" in request.query:
            raise Refused("the token never goes in the address (it would be kept in logs and the browser's "
                          f"history): send it in the {TOKEN_HEADER} header, or log in at /login", 400)
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if request.method not in SAFE_METHODS or upgrade:
            origin = request.headers.get("Origin")
            if origin is not None and not self.access.origin_ok(origin, local):
                raise Refused(f"the page at {origin} may not drive this table: only its own page may "
                              "(another one goes in [web] origins)", 403)
            if not upgrade and request.content_type != "application/json":
                given = request.headers.get("Content-Type") or "none"
                raise Refused(f"a request that changes the table must be JSON (Content-Type: application/json), "
                              f"not {given}", 415)
        return await handler(request)

    def may_control(self, request: web.Request) -> bool:
        return self.access.may_control(request.remote, request.headers.get(TOKEN_HEADER), request.cookies.get(COOKIE))

    def login_offered(self, request: web.Request) -> bool:
        """Another machine that may only watch, at a table that takes a token."""
        return bool(self.access.token) and not self.may_control(request)

    def authorize(self, request: web.Request) -> None:
        """Refused (403, or 429 after too many wrong tokens) unless the request may control the table."""
        remote = request.remote
        given = request.headers.get(TOKEN_HEADER)
        if given is not None and not is_loopback(remote) and self.access.too_many_wrong(remote):
            raise Refused(f"too many wrong tokens from {remote}; wait a minute", 429)
        if self.may_control(request):
            return
        if given is not None and self.access.token:
            self.access.wrong_token(remote)
        why = ("with the token of the [web] section (log in at /login)" if self.access.token
               else "the [web] section has no token for other machines")
        raise Refused(f"controls are taken only from this machine or {why}; {remote} may only watch", 403)

    async def login(self, request: web.Request) -> web.Response:
        """`{"token": "..."}`: the cookie that lets this browser control the table (the login page's form)."""
        remote = request.remote
        given = (await body(request)).get("token")
        if is_loopback(remote):
            return web.json_response({"ok": True, "controls": True})  # this machine needs no token
        if not self.access.token:
            raise Refused("this table has no token in its [web] section: other machines may only watch", 403)
        if self.access.too_many_wrong(remote):
            raise Refused(f"too many wrong tokens from {remote}; wait a minute", 429)
        if not isinstance(given, str):
            raise Refused(f"token must be text, not {json.dumps(given)}")
        try:
            right = self.access.token_matches(given)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        if not right:
            self.access.wrong_token(remote)
            raise Refused("that is not the table's token", 403)
        response = web.json_response({"ok": True, "controls": True})
        response.set_cookie(COOKIE, self.access.cookie_value(), max_age=LOGIN_DAYS * 86400, path="/",
                            httponly=True, samesite="Strict")
        return response

    async def logout(self, request: web.Request) -> web.Response:
        await body(request)
        response = web.json_response({"ok": True, "controls": is_loopback(request.remote)})
        response.del_cookie(COOKIE, path="/", samesite="Strict")
        return response
