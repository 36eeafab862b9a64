"""Reading public pages as a visitor does: the HTML parsed into a small tree (html.parser),
with finders by tag, class and attribute, and the text a person reads."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "link", "img", "input", "br", "hr", "source", "col", "area", "base", "wbr"}
SVG_SELF_CLOSING = {"rect", "polyline", "path", "circle", "line"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        return [
            node
            for node in self.walk()
            if (tag is None or node.tag == tag)
            and (cls is None or cls in node.classes)
            and all(node.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, cls, **attrs)
        assert found, f"no <{tag} class={cls} {attrs}>"
        return found[0]

    @property
    def text(self) -> str:
        """The text a person reads (scripts, styles and SVG titles left out), spaces squeezed."""
        parts: list[str] = []

        def visit(node: Node) -> None:
            if node.tag in ("style", "script", "title", "head"):
                return
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                else:
                    visit(child)

        visit(self)
        return " ".join(" ".join(parts).split())

    @property
    def raw_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.raw_text for c in self.children)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


_RUN = re.compile(r"M(\d+),\.5h(\d+)")


def bar_runs(svg: Node) -> list[tuple[int, int, str, str]]:
    """The runs of a bar strip as (first bar, bars, class, tooltip): each a `<path>` with its
    `<title>`, its class its own or its group's."""
    found: list[tuple[int, int, str, str]] = []

    def visit(node: Node, cls: str) -> None:
        for child in node.children:
            if not isinstance(child, Node):
                continue
            if child.tag == "g":
                visit(child, child.attrs.get("class", cls))
            elif child.tag == "path" and child.find_all("title"):
                match = _RUN.fullmatch(child.attrs["d"])
                assert match, child.attrs["d"]
                title = child.find("title").raw_text
                own = child.attrs.get("class", cls)
                found.append((int(match[1]), int(match[2]), own, title))

    visit(svg, "")
    return found
