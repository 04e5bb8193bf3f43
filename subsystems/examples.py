"""Names from the world for the examples in tool descriptions (``<<library>>``, ``<<room>>``, ...).

The reference implementation's prompt advertised categories and names that did not exist;
here every example a tool text quotes is taken from the world the agent is in.
"""

from __future__ import annotations

import re

from campus.world.index import WorldIndex

_NUMBERING = re.compile(r"^(chapter\s+\d+[.:]?|\d+(\.\d+)*\.?)\s*", re.IGNORECASE)

FALLBACK = {
    "library": "B001", "room": "Quiet Study Zone (West Wing)", "seat": "B001-West Wing-S012",
    "book": "Student Handbook", "chapter": "Chapter 1", "chapter_bare": "Chapter 1", "section": "1.1",
    "section_bare": "1.1", "article_id": "art_1.1.1", "section_id": "COMS0031131032(2)",
}
"""Used only where a world has none of the thing (a world without libraries has nothing to book)."""


def example_values(world: WorldIndex) -> dict[str, str]:
    values = dict(FALLBACK)
    values.update(_library(world))
    values.update(_handbook(world))
    codes = [c.code for c in world.world.courses]
    if codes:
        values["section_id"] = next((code for code in codes if code.endswith("(2)")), codes[0])
    return values


def _library(world: WorldIndex) -> dict[str, str]:
    for library in world.world.libraries:
        for room in library.rooms:
            if room.kind == "StudyArea" and room.seats:
                return {"library": library.building_id, "room": f"{room.name} ({room.id})", "seat": room.seats[0].id}
    return {}


def _handbook(world: WorldIndex) -> dict[str, str]:
    texts = world.world.texts
    book = next((t for t in texts if t.title == "Student Handbook"), texts[0] if texts else None)
    if book is None or not book.chapters or not book.chapters[0].sections:
        return {}
    chapter, section = book.chapters[0], book.chapters[0].sections[0]
    found = {"book": book.title, "chapter": chapter.title, "chapter_bare": _bare(chapter.title),
             "section": section.title, "section_bare": _bare(section.title)}
    if section.articles:
        found["article_id"] = section.articles[0].id
    return found


def _bare(title: str) -> str:
    return _NUMBERING.sub("", title) or title
