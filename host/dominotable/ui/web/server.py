"""The table page's server: the page, the JSON API, the state pushed over a WebSocket and the
scoreboard, on the web base (web/base.py: its own thread and event loop, behind the guard).

It knows the table only through the PageApi (api.py, the app implements it), so the front end
stays below the app, and it can never stall the table: the table only hands over what it shows
(view.py) and wakes the push (push.py). Who may reach it and who may drive it is auth.py's; what a
control may ask, controls.py's; the scoreboard reads the store in the server's one database
thread (scoreboard.py). Pages are static files, or built as elements (views/markup.py)."""

from __future__ import annotations

import io

import segno
from aiohttp import web
from PIL import Image

from dominotable.tray.errors import TrayError
from dominotable.ui.web.access import Access
from dominotable.ui.web.api import PageApi
from dominotable.ui.web.auth import Auth
from dominotable.ui.web.controls import Controls
from dominotable.ui.web.push import Push
from dominotable.ui.web.scoreboard import Scoreboard
from dominotable.ui.web.view import View
from dominotable.views import cards, markup, review, svg
from dominotable.views.markup import el
from dominotable.web.base import WebBase, reachable
from dominotable.web.guard import Refused, body, is_loopback

__all__ = ["WebServer", "reachable"]


class WebServer(WebBase):
    """The page on `host:port`. `token` lets other machines control the table; `hosts` are more
    names it answers to and `origins` more pages that may drive it (the `[web]` section)."""

    def __init__(self, api: PageApi, host: str = "127.0.0.1", port: int = 8080, token: str = "",
                 hosts=(), origins=()):
        super().__init__(host, port, __package__)
        self.api = api
        self.view = View(api)
        self.controls = Controls(api, self.view)
        self.scoreboard = Scoreboard(api.database, api.geometry)
        self.access = Access(host, token, hosts, origins)
        self.auth = Auth(self.access)
        self.push = Push(self.loop, self.view.message, lambda r: (self.auth.may_control(r), self.auth.login_offered(r)))
        self.view.changed = self.push.publish
        api.observe(self.view.screen_shown, self.view.frame_sent)

    @property
    def clients(self) -> dict:
        return self.push.clients

    def publish(self) -> None:
        self.push.publish()

    def middlewares(self) -> list:
        return [self.auth.check]

    async def started(self) -> None:
        self.access.port = self.port

    async def closing(self) -> None:
        await self.push.close()

    def routes(self) -> list[web.RouteDef]:
        c = self.controls
        return [
            web.get("/", self.page("table.html")), web.get("/scores", self.page("scores.html")),
            web.get("/login", self.page("login.html")),
            web.get("/oled.png", self._oled), web.get("/tray.svg", self._tray_svg),
            web.get("/api/state", self._state), web.get("/ws", self.push.handle),
            web.post("/api/tray", self._control(c.tray)), web.post("/api/button", self._control(c.button)),
            web.post("/api/fault", self._control(c.fault)),
            web.get("/api/setup", self._setup_offer), web.post("/api/setup", self._control(c.setup)),
            web.post("/api/action", self._control(c.action)), web.get("/api/targets", self._targets),
            web.post("/api/login", self.auth.login), web.post("/api/logout", self.auth.logout),
            web.get("/api/leaderboard", self._leaderboard), web.get("/api/history", self._history),
            web.get("/replay/{id}", self._replay), web.get("/api/match/{id}", self._moves),
            web.get("/api/link", self._link), web.get("/qr.svg", self._qr),
            web.get("/rules", self._rules), web.get("/rules/{name}", self._rules),
        ]

    # --- the table ---------------------------------------------------------------------------------

    async def _state(self, request: web.Request) -> web.Response:
        return web.Response(text=self.view.message(self.auth.may_control(request)), content_type="application/json")

    def _control(self, action):
        async def handler(request: web.Request) -> web.Response:
            self.auth.authorize(request)
            await self.work(action, await body(request))
            self.push.publish()
            return web.json_response({"ok": True})
        return handler

    async def _setup_offer(self, request: web.Request) -> web.Response:
        return web.json_response(await self.work(self.controls.setup_offer))

    async def _targets(self, request: web.Request) -> web.Response:
        """`?tile=3-5`: where the tile may be laid now (only for those who may move tiles)."""
        self.auth.authorize(request)
        return web.json_response(await self.work(self.controls.targets, request.query.get("tile")))

    async def _oled(self, request: web.Request) -> web.Response:
        png = self.view.png()
        if png is None:
            out = io.BytesIO()
            Image.new("1", (128, 64)).save(out, "PNG")
            png = out.getvalue()
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "no-store"})

    async def _tray_svg(self, request: web.Request) -> web.Response:
        """The tray's cells and the named zones (`?zones=a,b`): what the state's `base` names, fetched
        once per game instead of sent with every update."""
        zones = tuple(zone for zone in request.query.get("zones", "").split(",") if zone)
        try:
            picture = svg.base(self.api.geometry, zones)
        except TrayError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.Response(text=picture, content_type="image/svg+xml")

    # --- the scoreboard ----------------------------------------------------------------------------

    async def _leaderboard(self, request: web.Request) -> web.Response:
        return web.json_response(await self.query(self.scoreboard.leaderboard))

    async def _history(self, request: web.Request) -> web.Response:
        shown = self.view.shown
        live = shown.match if shown.mode not in ("setup", "over") else None
        return web.json_response(await self.query(self.scoreboard.history, live))

    async def _moves(self, request: web.Request) -> web.Response:
        """A recorded match's moves in plain words (`{"moves": [{ply, who, notation, words}]}`)."""
        return web.json_response(await self.query(self.scoreboard.moves, _match_id(request)))

    async def _replay(self, request: web.Request) -> web.Response:
        match_id = _match_id(request)
        try:
            step = int(request.query.get("step", "0"))
        except ValueError:
            raise web.HTTPBadRequest(text="a step number, as a whole number") from None
        data = await self.query(self.scoreboard.replay, match_id, step)
        name = f"{' v '.join(data['names'])}, {data['started'][:16].replace('T', ' ')}"
        return web.Response(text=review.page(data, name, f"/replay/{match_id}", "/scores"), content_type="text/html")

    def scoreboard_url(self) -> str:
        return self.public_url + "scores"

    async def _link(self, request: web.Request) -> web.Response:
        """The scoreboard's address for phones, and whether only this machine can open it."""
        return web.json_response({"url": self.scoreboard_url(), "local_only": is_loopback(reachable(self.host))})

    async def _qr(self, request: web.Request) -> web.Response:
        """The scoreboard's address as a QR code (dark modules on white, a quiet zone of four)."""
        code = segno.make(self.scoreboard_url(), error="m", micro=False)
        out = io.BytesIO()
        code.save(out, kind="svg", scale=4, border=4, dark="#000", light="#fff", xmldecl=False,
                  title=f"QR code of {self.scoreboard_url()}")
        return web.Response(body=out.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def _rules(self, request: web.Request) -> web.Response:
        """`/rules`: the cards; `/rules/castle-rock`: a card; `/rules/CR-5.2`: that rule in its card."""
        name = request.match_info.get("name")
        known = cards.cards()
        if name is not None and name not in known:
            card = cards.card_of(name) if cards.RULE.fullmatch(name) else None
            if card is None:
                raise web.HTTPNotFound(text=f"no rule card and no rule {name[:40]!r}; the cards are at /rules")
            raise web.HTTPFound(f"/rules/{card.name}#{name}")
        if name is None:
            title = "Rule cards"
            content = el("ul", None, *(el("li", None, el("a", {"href": f"/rules/{c.name}"}, c.title))
                                       for c in known.values()))
        else:
            title, content = f"{known[name].title}: rule card", markup.Markup(known[name].html)
        page = markup.page(self.files.text("rules.html"), title=title, body=content)
        return web.Response(text=page, content_type="text/html")


def _match_id(request: web.Request) -> int:
    try:
        return int(request.match_info["id"])
    except ValueError:
        raise Refused(f"matches are named by their numbers, whole numbers, not {request.match_info['id'][:20]!r}"
                      ) from None
