"""The rule cards as web pages: each game's card (seeds/, packaged with the games) rendered from
its Markdown, with an anchor per rule number (`/rules/castle-rock#CR-5.2`), so a prompt naming
"rule CR-5.2" can link to it. The cards use a small part of Markdown (headings, paragraphs,
lists, `code`, **bold**, *emphasis*); that part is rendered here as elements (views/markup.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dominotable.games import catalog
from dominotable.views.markup import Element, add, el, html

RULE = re.compile(r"\b[A-Z]{2,4}-\d+(?:\.\d+)?\b")  # a rule number: CR-5, CR-5.2, UDS-10.4
_ITEM = re.compile(r"^ ?(?:[-*]|\d+\.)\s+(.*)$")
INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])")  # `code`, **bold**, *em*


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


def inline(text: str, parent: Element) -> Element:
    """`text` with its `code`, **bold** and *emphasis* as elements, appended to `parent`."""
    found = INLINE.search(text)
    if found is None:
        return add(parent, text)
    add(parent, text[:found.start()])
    code, strong, em = found.groups()
    if code is not None:
        add(parent, el("code", None, code))
    else:
        add(parent, inline(strong if strong is not None else em, el("strong" if strong is not None else "em")))
    return inline(text[found.end():], parent)


def render(markdown: str) -> tuple[str, list[str]]:
    """The card as HTML, and the rule numbers given anchors: a heading "## CR-5 Captures" gets
    id="CR-5", a list item that starts with **CR-5.2** id="CR-5.2"."""
    out: list[Element] = []
    rules: list[str] = []
    block: list[str] = []  # the lines of the paragraph or list item being read
    lists: list[Element] = []  # the open list

    def flush() -> None:
        if not block:
            return
        text = " ".join(line.strip() for line in block)
        block.clear()
        if lists:
            first = re.match(r"\*\*([A-Z]{2,4}-\d+(?:\.\d+)?)\*\*", text)
            if first:
                rules.append(first.group(1))
            add(lists[-1], inline(text, el("li", {"id": first.group(1) if first else None})), "\n")
        else:
            out.append(inline(text, el("p")))

    for line in markdown.splitlines():
        heading = re.match(r"^(#{1,4})\s+(.*)$", line)
        item = _ITEM.match(line)
        if heading:
            flush()
            lists.clear()
            level, title = len(heading.group(1)), heading.group(2).strip()
            number = RULE.match(title)
            if number:
                rules.append(number.group(0))
            out.append(inline(title, el(f"h{level}", {"id": number.group(0) if number else None})))
        elif item:
            flush()
            tag = "ol" if item.group(0).lstrip()[0].isdigit() else "ul"
            if not lists or lists[-1].tag != tag:
                lists[:] = [el(tag, None, "\n")]
                out.append(lists[0])
            block.append(item.group(1))
        elif not line.strip():
            flush()
            lists.clear()
        else:
            block.append(line)
    flush()
    return "\n".join(html(node) for node in out), rules
