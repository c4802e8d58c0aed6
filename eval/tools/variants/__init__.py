"""Incident variants drawn from a seed (docs/variants.md).

build(seed, cls=None) returns one simlib.Workspace in the bundled suite's format;
generate() writes a range of them. The class is drawn from the seed unless given.
"""

import os
import shutil

from variants.draw import ANSWERABLE, CLASSES, DEV_END, UNANSWERABLE, draw, draw_class, parse_seeds  # noqa: F401
from variants import answerable, nodata

BUILDERS = {**answerable.BUILDERS, **nodata.BUILDERS}


def check_range(seeds, measure):
    """Refuses the measuring range unless asked for it by name."""
    if seeds[-1] >= DEV_END and not measure:
        raise SystemExit(f"seeds {seeds[0]}-{seeds[-1]} reach the measuring range (>= {DEV_END}); "
                         "develop on 0-99999, and pass --measure only for a counted measuring run")


def build(seed, cls=None):
    if cls is not None and cls not in BUILDERS:
        raise SystemExit(f"unknown class {cls!r}; one of: {', '.join(CLASSES)}")
    cls = cls or draw_class(seed)
    return BUILDERS[cls](draw(seed, cls))


def _mentions(folder, needle):
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if f in ("incident.toml", "GROUND_TRUTH.md") or f.endswith(".db"):
                continue
            with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                if needle.lower() in fh.read().lower():
                    return os.path.join(dirpath, f)
    db = os.path.join(folder, "data", "ops.db")
    if os.path.exists(db):
        import sqlite3
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            if needle.lower() in "\n".join(con.iterdump()).lower():
                return db
        finally:
            con.close()
    return None


def generate(seeds, out, cls=None):
    """Writes one folder per seed under out; returns their (name, class) pairs."""
    os.makedirs(out, exist_ok=True)
    written = []
    for seed in seeds:
        ws = build(seed, cls)
        target = os.path.join(out, ws.name)
        if os.path.isdir(target):
            shutil.rmtree(target)
        ws.write(out)
        foreign = getattr(ws, "foreign_name", None)
        if foreign and _mentions(target, foreign):
            raise SystemExit(f"{ws.name}: the data mentions {foreign!r}, which the question must name alone")
        written.append((ws.name, ws.name.split("-", 1)[1]))
    return written
