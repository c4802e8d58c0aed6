#!/usr/bin/env python3
"""Checks the incident-variant generator (eval/tools/variants.py, docs/variants.md).

    tests/eval_suite/check_variants.py DIAGD

- the same seeds written twice are byte-identical folders;
- every class can be generated, and its [expect] fits it;
- `diagd eval` with the offline provider loads and runs one variant of each
  class without a config error or a FAILED verdict (no quality figure is
  asserted: the variants measure the method, they do not gate it);
- variants_eval.py refuses the measuring range without --measure, before
  generating or running anything.
Exit 0 when all holds, 1 otherwise.
"""

import filecmp
import json
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "eval", "tools")
sys.path.insert(0, TOOLS)

import variants  # noqa: E402

problems = []


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    diffs = cmp.left_only + cmp.right_only + cmp.funny_files
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    diffs += mismatch + errors
    for sub in cmp.common_dirs:
        diffs += [os.path.join(sub, d) for d in same_tree(os.path.join(a, sub), os.path.join(b, sub))]
    return diffs


def generate(args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "variants.py"), *args], capture_output=True, text=True)


def main():
    diagd = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "src", "cli", "diagd")
    with tempfile.TemporaryDirectory(prefix="diagd-variants-test-") as tmp:
        a, b, each = (os.path.join(tmp, x) for x in ("a", "b", "each"))
        for out in (a, b):
            p = generate(["--seeds", "0-11", "--out", out])
            if p.returncode != 0:
                problems.append(f"variants.py --seeds 0-11 failed: {p.stderr.strip()}")
        if os.path.isdir(a) and os.path.isdir(b):
            if len(os.listdir(a)) != 12:
                problems.append(f"seeds 0-11 wrote {len(os.listdir(a))} folders, expected 12")
            diffs = same_tree(a, b)
            if diffs:
                problems.append("seeds 0-11 written twice differ: " + ", ".join(diffs[:5]))

        for cls in variants.CLASSES:
            p = generate(["--seeds", "3", "--out", each, "--class", cls])
            if p.returncode != 0:
                problems.append(f"class {cls}: {p.stderr.strip()}")
                continue
            folder = os.path.join(each, f"000003-{cls}")
            with open(os.path.join(folder, "incident.toml"), "rb") as f:
                expect = tomllib.load(f)["expect"]
            want = "DIAGNOSIS" if cls in variants.ANSWERABLE else "FALLBACK"
            if expect["outcome"] != want:
                problems.append(f"class {cls}: outcome {expect['outcome']}, expected {want}")
            if want == "DIAGNOSIS" and not (expect.get("root_cause_any") and expect.get("cause_any")):
                problems.append(f"class {cls}: a diagnosis needs root_cause_any and cause_any")
            if not os.path.isfile(os.path.join(folder, "GROUND_TRUTH.md")):
                problems.append(f"class {cls}: no GROUND_TRUTH.md")

        p = generate(["--seeds", "100000", "--out", os.path.join(tmp, "measure")])
        if p.returncode == 0 or os.path.exists(os.path.join(tmp, "measure")):
            problems.append("variants.py wrote the measuring range without --measure")
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "variants_eval.py"), "--seeds", "99990-100000",
                            "--config", os.devnull, "--keep", os.path.join(tmp, "measure-eval"), "--diagd", diagd],
                           capture_output=True, text=True)
        if p.returncode == 0 or "measuring range" not in p.stderr or os.path.exists(os.path.join(tmp, "measure-eval")):
            problems.append(f"variants_eval.py did not refuse the measuring range: rc {p.returncode} {p.stderr.strip()[:200]}")

        if not os.access(diagd, os.X_OK):
            problems.append(f"{diagd}: no diagd binary")
        elif os.path.isdir(each):
            config = os.path.join(tmp, "offline.toml")
            with open(config, "w") as f:
                f.write('[model]\nprovider = "offline"\n')
            p = subprocess.run([diagd, "eval", each, "--config", config, "--json", "--jobs", "2"], capture_output=True, text=True)
            if p.returncode != 0:
                problems.append(f"diagd eval on one variant per class exited {p.returncode}: {p.stderr.strip()[-400:]}")
            else:
                doc = json.loads(p.stdout)
                if len(doc["incidents"]) != len(variants.CLASSES) or doc.get("skipped"):
                    problems.append(f"diagd eval ran {len(doc['incidents'])} variants, skipped {doc.get('skipped')}")
                for inc in doc["incidents"]:
                    if inc["verdict"] == "FAILED":
                        problems.append(f"{inc['name']}: FAILED ({inc.get('failure_reason')})")

    if problems:
        print(f"check_variants: {len(problems)} problem(s)", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"check_variants: seeds 0-11 deterministic, {len(variants.CLASSES)} classes generated and run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
