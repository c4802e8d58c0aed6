#!/usr/bin/env python3
"""Generate incident variants from seeds, one folder each, in the bundled suite's format.

    python3 eval/tools/variants.py --seeds 0-59 --out /tmp/dev60
    python3 eval/tools/variants.py --seeds 7 --out /tmp/v --class dns-removed

Seeds 0-99999 are the development range; 100000 and above the measuring range,
refused without --measure. The same seed always writes the same bytes.
docs/variants.md describes what is varied.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import variants  # noqa: E402  (needs this folder on sys.path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", required=True, help="A-B (inclusive) or A")
    ap.add_argument("--out", required=True, help="folder to write the incidents into")
    ap.add_argument("--class", dest="cls", choices=variants.CLASSES, help="this class instead of the drawn one")
    ap.add_argument("--measure", action="store_true", help="allow the measuring range (seeds >= 100000)")
    args = ap.parse_args()
    seeds = variants.parse_seeds(args.seeds)
    variants.check_range(seeds, args.measure)
    for name, _ in variants.generate(seeds, args.out, args.cls):
        print(os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
