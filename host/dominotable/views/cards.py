"""The rule cards as web pages: each game's card (seeds/, packaged with the games) rendered from
its Markdown, with an anchor per rule number (`/rules/castle-rock#CR-5.2`), so a prompt naming
"rule CR-5.2" can link to it. The cards use a small part of Markdown (headings, paragraphs,
lists, `code`, **bold**, *emphasis*); that part is rendered here, everything escaped first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from dominotable.games import catalog

RULE = re.compile(r"\b[A-Z]{2,4}-\d+(?:\.\d+)?\b")  # a rule number: CR-5, CR-5.2, UDS-10.4
_ITEM = re.compile(r"^ ?(?:[-*]|\d+\.)\s+(.*)$")
_INLINE = [(re.compile(r"`([^`]+)`"), r"<code>\1</code>"), (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
           (re.compile(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])"), r"<em>\1</em>")]


@dataclass(frozen=True)
class Card:
    name: str  # in the address: castle-rock
    title: str
    html: str
    rules: frozenset[str]  # the rule numbers it has anchors for


@lru_cache(maxsize=None)
def cards() -> dict[str, Card]:
    """Every game's rule card that is packaged, by its name in the address."""
    out = {}
    for spec in catalog.GAMES:
        try:
            text = spec.rule_card()
        except OSError:  # a game without a packaged card (a test's toy game)
            continue
        name = spec.card.removesuffix(".md")
        html, rules = render(text)
        out[name] = Card(name, spec.title, html, frozenset(rules))
    return out


def card_of(rule: str) -> Card | None:
    """The card that has this rule number (or its section: CR-5 for CR-5.2)."""
    for card in cards().values():
        if rule in card.rules:
            return card
    return None


def inline(text: str) -> str:
    out = escape(text, quote=False)
    for pattern, replacement in _INLINE:
        out = pattern.sub(replacement, out)
    return out


def render(markdown: str) -> tuple[str, list[str]]:
    """The card as HTML, and the rule numbers given anchors: a heading "## CR-5 Captures" gets
    id="CR-5", a list item that starts with **CR-5.2** id="CR-5.2"."""
    out: list[str] = []
    rules: list[str] = []
    block: list[str] = []  # the lines of the paragraph or list item being read
    lists: list[str] = []  # the open lists' tags

    def flush() -> None:
        if not block:
            return
        text = inline(" ".join(line.strip() for line in block))
        block.clear()
        if lists:
            first = re.match(r"<strong>([A-Z]{2,4}-\d+(?:\.\d+)?)</strong>", text)
            anchor = f' id="{first.group(1)}"' if first else ""
            if first:
                rules.append(first.group(1))
            out.append(f"<li{anchor}>{text}</li>")
        else:
            out.append(f"<p>{text}</p>")

    def close_lists() -> None:
        while lists:
            out.append(f"</{lists.pop()}>")

    for line in markdown.splitlines():
        heading = re.match(r"^(#{1,4})\s+(.*)$", line)
        item = _ITEM.match(line)
        if heading:
            flush()
            close_lists()
            level, title = len(heading.group(1)), heading.group(2).strip()
            number = RULE.match(title)
            anchor = f' id="{number.group(0)}"' if number else ""
            if number:
                rules.append(number.group(0))
            out.append(f"<h{level}{anchor}>{inline(title)}</h{level}>")
        elif item:
            flush()
            tag = "ol" if item.group(0).lstrip()[0].isdigit() else "ul"
            if lists and lists[-1] != tag:
                close_lists()
            if not lists:
                lists.append(tag)
                out.append(f"<{tag}>")
            block.append(item.group(1))
        elif not line.strip():
            flush()
            close_lists()
        else:
            block.append(line)
    flush()
    close_lists()
    return "\n".join(out), rules

