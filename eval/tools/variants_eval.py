#!/usr/bin/env python3
"""Generate incident variants and score diagd on them, per class.

    python3 eval/tools/variants_eval.py --seeds 0-59 --config offline.toml --keep /tmp/dev60
    python3 eval/tools/variants_eval.py --seeds 0-199 --config my-model.toml --class dns-removed --json

Runs `diagd eval` on the generated folder (--json, plus an HTML report for the
released root causes) and prints, per class and in total, how many variants
were right, shallow, wrong, honest fallbacks, dishonest and failed, the share
of answerable variants that were right, and each released diagnosis that was
not right. Seeds 0-99999 are for development; the measuring range (100000
and above) is refused without --measure, and a measuring run must be counted
in docs/variants.md.
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import variants  # noqa: E402  (needs HERE on sys.path)

VERDICTS = ["RIGHT", "SHALLOW", "WRONG", "HONEST_FALLBACK", "DISHONEST", "FAILED"]
NAME = re.compile(r"^(\d{6,})-([a-z-]+)$")


def default_diagd():
    return os.environ.get("DIAGD") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "src", "cli", "diagd")


def prepare_keep(folder):
    """--keep DIR: a folder of earlier variants is emptied; anything else in it is refused."""
    if not os.path.isdir(folder):
        return
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        if not (NAME.match(entry) and os.path.isdir(path)) and entry != "report.html":
            raise SystemExit(f"--keep {folder}: holds {entry!r}, which is no variant; use an empty or new folder")
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def released_texts(report_html):
    """name -> the released root cause (or answer) from diagd's HTML report."""
    out = {}
    for name, body in re.findall(r'<section id="incident-([^"]*)">(.*?)</section>', report_html, re.S):
        m = (re.search(r"<strong>Root cause</strong>[^:]*: (.*?)</p>", body, re.S)
             or re.search(r"<strong>Answer:</strong> (.*?)</p>", body, re.S))
        if m:
            out[name] = " ".join(html.unescape(m.group(1)).split())
    return out


def run_eval(diagd, suite, config, jobs, report):
    cmd = [diagd, "eval", suite, "--config", config, "--json", "--jobs", str(jobs), "--report", report]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"diagd eval exited {proc.returncode}")
    return json.loads(proc.stdout)


def summarize(doc, texts):
    rows = {}
    incidents = []
    for inc in doc["incidents"]:
        m = NAME.match(inc["name"])
        seed, cls = (int(m.group(1)), m.group(2)) if m else (None, inc["name"])
        counts = rows.setdefault(cls, dict.fromkeys(VERDICTS, 0))
        counts[inc["verdict"]] = counts.get(inc["verdict"], 0) + 1
        incidents.append({"name": inc["name"], "seed": seed, "class": cls, "verdict": inc["verdict"],
                          "outcome": inc["outcome"], "fallback_code": inc["fallback_code"],
                          "missing_checks": inc.get("missing_checks", []), "released": texts.get(inc["name"], "")})
    total = dict.fromkeys(VERDICTS, 0)
    for counts in rows.values():
        for v in VERDICTS:
            total[v] += counts.get(v, 0)
    answerable = [i for i in incidents if i["class"] in variants.ANSWERABLE]
    right = sum(i["verdict"] == "RIGHT" for i in answerable)
    return {"classes": {c: rows[c] for c in variants.CLASSES if c in rows}, "total": total,
            "answerable": len(answerable), "answerable_right": right,
            "answerable_right_pct": round(100.0 * right / len(answerable), 1) if answerable else None,
            "incidents": incidents}


def print_table(s, seeds):
    cols = ["right", "shallow", "wrong", "honest_fb", "dishonest", "failed"]
    print(f"variants {seeds[0]}-{seeds[-1]}: {len(s['incidents'])} incidents")
    print(f"{'class':<20} {'n':>4} " + " ".join(f"{c:>9}" for c in cols))
    for cls, counts in list(s["classes"].items()) + [("total", s["total"])]:
        n = sum(counts.values())
        print(f"{cls:<20} {n:>4} " + " ".join(f"{counts[v]:>9}" for v in VERDICTS))
    if s["answerable"]:
        print(f"answerable right: {s['answerable_right']}/{s['answerable']} ({s['answerable_right_pct']}%)")
    bad = [i for i in s["incidents"] if i["verdict"] in ("WRONG", "SHALLOW", "DISHONEST")]
    if bad:
        print("\nreleased and not right:")
        for i in bad:
            text = i["released"] or "(no text)"
            print(f"  {i['name']} {i['verdict']} {i['outcome']}: {text[:240]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", required=True, help="A-B (inclusive) or A")
    ap.add_argument("--config", required=True, help="diagd config naming the model (e.g. [model] provider = \"offline\")")
    ap.add_argument("--keep", help="generate into this folder and keep it (else a temp dir)")
    ap.add_argument("--class", dest="cls", choices=variants.CLASSES, help="only this class")
    ap.add_argument("--measure", action="store_true", help="allow the measuring range (seeds >= 100000)")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    ap.add_argument("--jobs", type=int, default=2, help="incidents diagd runs at once")
    ap.add_argument("--diagd", default=default_diagd(), help="the diagd binary (default: $DIAGD or build/src/cli/diagd)")
    args = ap.parse_args()
    seeds = variants.parse_seeds(args.seeds)
    variants.check_range(seeds, args.measure)
    if seeds[-1] >= variants.DEV_END:
        print(f"WARNING: measuring run over seeds {seeds[0]}-{seeds[-1]}: count it in docs/variants.md "
              "(date, method, seeds, figures); a method tuned after seeing these seeds is no longer measured by them",
              file=sys.stderr)
    if not os.access(args.diagd, os.X_OK):
        raise SystemExit(f"{args.diagd}: no diagd binary (build src/cli/diagd or pass --diagd)")
    tmp = None
    if args.keep:
        prepare_keep(args.keep)
        folder = args.keep
    else:
        tmp = tempfile.mkdtemp(prefix="diagd-variants-")
        folder = tmp
    try:
        variants.generate(seeds, folder, args.cls)
        report = os.path.join(folder, "report.html") if args.keep else os.path.join(tmp, "report.html")
        suite = folder
        if not args.keep:
            # The report must not sit among the incidents diagd walks: keep the variants in a subfolder.
            suite = os.path.join(tmp, "variants")
            os.makedirs(suite)
            for entry in os.listdir(tmp):
                if NAME.match(entry):
                    shutil.move(os.path.join(tmp, entry), suite)
        doc = run_eval(args.diagd, suite, args.config, args.jobs, report)
        with open(report, encoding="utf-8") as f:
            texts = released_texts(f.read())
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    s = summarize(doc, texts)
    s["seeds"] = [seeds[0], seeds[-1]]
    if args.json:
        print(json.dumps(s, ensure_ascii=False, indent=1))
    else:
        print_table(s, seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
