"""The venue's MQTT broker (Eclipse Mosquitto): its address, the topics, and a client for it.

Topics, for a table with the id T (a table may publish only under its own `tables/T/`, and read
its acks, the players and the other tables' events, invitations, heard and status, for a match
two tables play; the broker's ACL says so, see deploy/mosquitto/):

| topic | who publishes | what |
|---|---|---|
| `dominotable/tables/T/events` | table T, QoS 1 | one committed event (store/outbox.py) as JSON, with "table": T |
| `dominotable/tables/T/acks` | the venue, QoS 1 | `{"stored": [[uid, seq], ...]}`: events the venue has stored |
| `dominotable/tables/T/state` | table T, retained | the table's live state: game, names, scores, turn, prompt |
| `dominotable/tables/T/status` | table T, retained (its will) | `{"online": true}`, `{"online": false}` |
| `dominotable/tables/T/invite` | table T, retained | the `started` event of the match T hosts with seats at table P (its "partner": P), or empty |
| `dominotable/tables/T/heard` | table T, retained | `{"heard": [[uid, seq], ...]}`: the last event of each partner's shared match T has applied |
| `dominotable/players` | the venue, retained | the known players, `[{"id", "name"}]` |
| `dominotable/venue/status` | the venue, retained (its will) | `{"online": ...}`: tables resend only while it listens |

Every client has a fixed client id and a persistent session (MQTT 5, a session expiry of a week,
clean start off), so what is published for it while it is away waits at the broker for it.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from dominotable.rules.errors import DominoError

ROOT = "dominotable"
PLAYERS = f"{ROOT}/players"
VENUE_STATUS = f"{ROOT}/venue/status"
ALL_TABLES = f"{ROOT}/tables/+/"  # + "events", "state", "status"
SESSION_EXPIRY = 7 * 24 * 3600  # seconds the broker keeps an absent client's session and its messages
KEEPALIVE = 10  # seconds: a table or venue that goes silent is seen gone within 1.5 times this
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


class BrokerError(DominoError):
    """A broker address or a table id that cannot be used."""


def topic(table: str, name: str) -> str:
    return f"{ROOT}/tables/{table}/{name}"


def table_of(topic_name: str) -> tuple[str, str] | None:
    """(table, name) of a table's topic, else None."""
    parts = topic_name.split("/")
    return (parts[2], parts[3]) if len(parts) == 4 and parts[:2] == [ROOT, "tables"] else None


def table_id(text: str) -> str:
    """A table id: letters, digits, - and _ (it is part of topics and the broker's user name)."""
    if not isinstance(text, str) or not TABLE_ID.fullmatch(text):
        raise BrokerError(f"table id {text!r} must be 1-40 letters, digits, - or _ (like bar-3)")
    return text


def status(online: bool) -> bytes:
    return json.dumps({"online": online}).encode()


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    username: str = ""
    password: str = ""
    tls: bool = False
    ca: str = ""  # a CA file for TLS ("" = the system's)

    @classmethod
    def parse(cls, url: str, username: str = "", password: str = "", ca: str = "") -> Broker:
        """`mqtt://[user:pass@]HOST[:PORT]` (port 1883), or `mqtts://` for TLS (port 8883).
        Credentials in the address win over `username` and `password`."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as exc:
            raise BrokerError(f"broker {url!r}: {exc}") from None
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise BrokerError(f"broker {url!r} is not mqtt://[user:pass@]HOST:PORT (or mqtts:// for TLS)")
        if parts.path not in ("", "/") or parts.query:
            raise BrokerError(f"broker {url!r}: an address takes no path or query")
        tls = parts.scheme == "mqtts"
        if parts.username is not None:
            username, password = unquote(parts.username), unquote(parts.password or "")
        return cls(parts.hostname, port or (8883 if tls else 1883), username, password, tls or bool(ca), ca)

    def __str__(self) -> str:
        """The address without the password."""
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"

    def client(self, identifier: str, will: tuple[str, bytes] | None = None):
        """An aiomqtt client with the fixed id `identifier` and a persistent session; `will`:
        (topic, payload) the broker publishes, retained, when the client vanishes."""

        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = SESSION_EXPIRY
        context = None
        if self.tls:
            try:
                context = ssl.create_default_context(cafile=self.ca or None)
            except (OSError, ssl.SSLError) as exc:
                raise BrokerError(f"broker {self}: cannot use the CA file {self.ca!r}: {exc}") from None
        client = aiomqtt.Client(
            self.host, self.port, identifier=identifier, username=self.username or None,
            password=self.password or None, protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
            properties=properties, keepalive=KEEPALIVE, timeout=10, tls_context=context,
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],  # Nagle would hold each small message 40 ms
            will=aiomqtt.Will(will[0], will[1], qos=1, retain=True) if will else None)
        client.pending_calls_threshold = 1000  # a window of events awaiting the broker is normal here
        return client
