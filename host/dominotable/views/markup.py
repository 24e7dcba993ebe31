"""HTML built as elements, never as strings: a text or an attribute value is escaped by the
serializer (ElementTree's HTML method), so a player's name or a rule's words can never become
markup. A page is a template of the package's with named slots, each filled with elements, or with
`Markup` the project drew itself (the tray's SVG)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from html import escape

Element = ET.Element
SLOT = re.compile(r"\{(\w+)\}")


class Markup(str):
    """Markup drawn by the project's own code (views/svg.py), put into a page as it is."""


def el(tag: str, attrs: dict | None = None, *children: Element | str | None) -> Element:
    """An element with attributes (None values left out) and children: elements, or texts."""
    node = ET.Element(tag, {name: str(value) for name, value in (attrs or {}).items() if value is not None})
    add(node, *children)
    return node


def add(parent: Element, *children: Element | str | None) -> Element:
    """Append elements and texts to `parent` (a text goes after the last child, as its tail)."""
    for child in children:
        if child is None:
            continue
        if isinstance(child, str):
            if len(parent):
                parent[-1].tail = (parent[-1].tail or "") + child
            else:
                parent.text = (parent.text or "") + child
        else:
            parent.append(child)
    return parent


def html(nodes: Element | Iterable[Element | str] | str) -> str:
    """Elements (or texts, escaped) as HTML."""
    if isinstance(nodes, Markup):
        return str(nodes)
    if isinstance(nodes, str):
        return escape(nodes)
    if isinstance(nodes, ET.Element):
        return ET.tostring(nodes, encoding="unicode", method="html")
    return "".join(html(node) for node in nodes)


def page(template: str, **slots) -> str:
    """The template with each `{name}` slot filled: elements, texts (escaped) or Markup."""
    return SLOT.sub(lambda m: html(slots[m[1]]) if m[1] in slots else m[0], template)
