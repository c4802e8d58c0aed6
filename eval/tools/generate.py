#!/usr/bin/env python3
"""Generate every incident workspace of the bundled eval suite (eval/incidents/).

    python3 eval/tools/generate.py            # rewrite eval/incidents/<name>/ for every spec
    python3 eval/tools/generate.py --check    # regenerate into a temp dir, compare, exit 1 on drift
    python3 eval/tools/generate.py --only NAME[,NAME]   # rewrite some incidents only

One spec per incident lives in eval/tools/specs/<name>.py (a build() that
returns a simlib.Workspace); the shared simulation is eval/tools/simlib.py.
Deterministic: fixed seeds, no wall clock, sorted output. Text files compare
byte for byte; SQLite databases by their iterdump() text (the bytes of a
.db file depend on the sqlite library version).
"""

import argparse
import difflib
import importlib
import os
import shutil
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(HERE), "incidents")
sys.path.insert(0, HERE)

from specs import SPECS  # noqa: E402  (needs HERE on sys.path)


def build_all(root, only=None):
    names = []
    for module_name in SPECS:
        if only and module_name not in only:
            continue
        ws = importlib.import_module(f"specs.{module_name}").build()
        if ws.name != module_name:
            raise SystemExit(f"spec {module_name}: workspace is named {ws.name}")
        target = os.path.join(root, ws.name)
        if os.path.isdir(target):
            shutil.rmtree(target)
        ws.write(root)
        names.append(ws.name)
    return names


def _files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


def _dump(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return "\n".join(con.iterdump()) + "\n"
    finally:
        con.close()


def _content(path):
    if path.endswith(".db"):
        return _dump(path)
    with open(path, "rb") as f:
        return f.read()


def check():
    problems = []
    with tempfile.TemporaryDirectory(prefix="diagd-eval-gen-") as tmp:
        build_all(tmp)
        fresh, kept = _files(tmp), _files(SUITE) if os.path.isdir(SUITE) else []
        for rel in sorted(set(fresh) - set(kept)):
            problems.append(f"missing (not checked in): {rel}")
        for rel in sorted(set(kept) - set(fresh)):
            problems.append(f"stale (checked in, not generated): {rel}")
        for rel in sorted(set(fresh) & set(kept)):
            a, b = _content(os.path.join(SUITE, rel)), _content(os.path.join(tmp, rel))
            if a == b:
                continue
            if isinstance(a, bytes):
                try:
                    a, b = a.decode("utf-8"), b.decode("utf-8")
                except UnicodeDecodeError:
                    problems.append(f"differs (binary): {rel}")
                    continue
            diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), "checked-in/" + rel,
                                             "generated/" + rel, n=0, lineterm=""))
            changed = sum(1 for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---")))
            problems.append(f"differs: {rel} ({changed} lines)\n    " + "\n    ".join(diff[:8]))
    if problems:
        print(f"eval suite out of date: {len(problems)} problem(s); "
              "run python3 eval/tools/generate.py and commit eval/incidents/", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"eval suite up to date: {len(SPECS)} incidents, {len(fresh)} files")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare a fresh build with eval/incidents/")
    ap.add_argument("--only", help="comma-separated incident names to rewrite")
    args = ap.parse_args()
    if args.check:
        return check()
    only = set(args.only.split(",")) if args.only else None
    if only and only - set(SPECS):
        raise SystemExit(f"unknown incident(s): {', '.join(sorted(only - set(SPECS)))}")
    if not only and os.path.isdir(SUITE):
        # A full rewrite also drops incidents whose spec is gone.
        for name in sorted(os.listdir(SUITE)):
            if name not in SPECS and os.path.isdir(os.path.join(SUITE, name)):
                shutil.rmtree(os.path.join(SUITE, name))
    os.makedirs(SUITE, exist_ok=True)
    for name in build_all(SUITE, only):
        print(f"wrote eval/incidents/{name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
