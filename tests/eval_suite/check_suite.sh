#!/usr/bin/env bash
# Checks the bundled eval suite (eval/incidents/): the checked-in workspaces are
# exactly what eval/tools/generate.py writes, and every incident.toml has the
# shape docs/eval.md and docs/eval-suite.md describe. Needs python3 >= 3.11
# (tomllib); no build, no network. Exit 0 when all holds, 1 otherwise.
#
#   tests/eval_suite/check_suite.sh [SUITE_DIR]     # default: eval/incidents
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SUITE="${1:-$ROOT/eval/incidents}"

if ! python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "check_suite: python3 >= 3.11 is needed (tomllib); found $(python3 --version 2>&1)" >&2
  exit 1
fi

status=0
if [ "$SUITE" = "$ROOT/eval/incidents" ]; then
  python3 "$ROOT/eval/tools/generate.py" --check || status=1
fi

python3 - "$SUITE" <<'PY' || status=1
import os, re, sqlite3, sys, tomllib

suite = sys.argv[1]
bundled = os.path.abspath(suite).endswith(os.path.join("eval", "incidents"))
problems = []
TOP = {"question", "language", "now", "tools", "expect"}
TOOLS = {"documents", "logs", "mysql"}
DOCS = {"backend", "path", "url", "max_evidence", "max_excerpt_chars", "timeout_ms"}       # no cache_path
LOGS = {"backend", "path", "default_lookback_minutes", "max_lookback_minutes", "max_events",
        "max_message_chars", "timeout_ms"}
DS = {"url", "max_rows", "timeout_ms", "max_cell_chars"}
EXPECT = {"outcome", "fallback_code", "root_cause_any", "cause_any", "must_check"}
OUTCOMES = {"DIAGNOSIS", "FALLBACK", "ANSWER"}
CODES = {"INSUFFICIENT_EVIDENCE", "MISSING_REQUIRED_CONTEXT", "FAILED"}
CHECKS = {"search_documents", "query_logs", "query_mysql"}
NOW = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
TOPIC = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\.(jsonl|log)$")


skipped = set()


def outside(d, p):
    """A path outside the incident folder: real data (eval/real) that may be absent."""
    return os.path.relpath(os.path.abspath(p), os.path.abspath(d)).startswith("..")


def bad(name, msg):
    problems.append(f"{name}: {msg}")


def positive_ints(name, table, keys, where):
    for k in keys:
        if k in table and not (type(table[k]) is int and table[k] >= 1):
            bad(name, f"{where}.{k}: expected a positive integer")


def check_incident(name, d):
    path = os.path.join(d, "incident.toml")
    try:
        with open(path, "rb") as f:
            t = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        bad(name, f"incident.toml: {e}")
        return None
    for k in sorted(set(t) - TOP):
        bad(name, f"unknown top-level key or table: {k}")
    q = t.get("question")
    if not isinstance(q, str) or not q.strip():
        bad(name, "question: expected a non-empty string")
    if t.get("language") not in ("zh", "en"):
        bad(name, 'language: expected "zh" or "en"')
    if "now" in t and not (isinstance(t["now"], str) and NOW.match(t["now"])):
        bad(name, "now: expected an RFC 3339 string with a zone")
    tools = t.get("tools", {})
    if not isinstance(tools, dict):
        bad(name, "tools: expected a table")
        tools = {}
    for k in sorted(set(tools) - TOOLS):
        bad(name, f"tools.{k}: not allowed in an incident")
    docs = tools.get("documents")
    if docs is not None:
        for k in sorted(set(docs) - DOCS):
            bad(name, f"tools.documents.{k}: not allowed in an incident")
        positive_ints(name, docs, ("max_evidence", "max_excerpt_chars", "timeout_ms"), "tools.documents")
        if docs.get("backend", "local") == "local":
            p = os.path.join(d, docs.get("path", "docs"))
            absent = outside(d, p) and not os.path.isdir(p)
            if absent:
                skipped.add(name)
            mds = [f for _, _, fs in os.walk(p) for f in fs if f.endswith(".md")] if os.path.isdir(p) else []
            if not mds and not absent:
                bad(name, f"tools.documents.path: no Markdown under {docs.get('path', 'docs')}")
    logs = tools.get("logs")
    if logs is not None:
        for k in sorted(set(logs) - LOGS):
            bad(name, f"tools.logs.{k}: not allowed in an incident")
        positive_ints(name, logs, ("default_lookback_minutes", "max_lookback_minutes", "max_events",
                                   "max_message_chars", "timeout_ms"), "tools.logs")
        if logs.get("default_lookback_minutes", 60) > logs.get("max_lookback_minutes", 1440):
            bad(name, "tools.logs.default_lookback_minutes: above max_lookback_minutes")
        p = os.path.join(d, logs.get("path", "logs"))
        absent = outside(d, p) and not os.path.isdir(p)
        if absent:
            skipped.add(name)
        topics = [f for f in os.listdir(p) if TOPIC.match(f)] if os.path.isdir(p) else []
        if not topics and not absent:
            bad(name, f"tools.logs.path: no .jsonl/.log topics under {logs.get('path', 'logs')}")
    mysql = tools.get("mysql", {})
    for k in sorted(set(mysql) - {"datasources"}):
        bad(name, f"tools.mysql.{k}: only datasources is allowed")
    for ds, v in sorted(mysql.get("datasources", {}).items()):
        if not re.fullmatch(r"[A-Za-z0-9_-]+", ds):
            bad(name, f"tools.mysql.datasources.{ds}: bad name")
        for k in sorted(set(v) - DS):
            bad(name, f"tools.mysql.datasources.{ds}.{k}: not allowed")
        positive_ints(name, v, ("max_rows", "timeout_ms", "max_cell_chars"), f"tools.mysql.datasources.{ds}")
        url = v.get("url")
        if not isinstance(url, str) or not url.startswith(("sqlite:", "mysql://")):
            bad(name, f"tools.mysql.datasources.{ds}.url: expected sqlite:PATH or mysql://")
        elif url.startswith("sqlite:"):
            db = os.path.join(d, url[len("sqlite:"):])
            if os.path.isabs(url[len("sqlite:"):]):
                bad(name, f"tools.mysql.datasources.{ds}.url: a bundled incident uses a relative path")
            if not os.path.isfile(db):
                bad(name, f"tools.mysql.datasources.{ds}.url: {url} does not exist")
            else:
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
                names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                con.close()
                if not names & {"changes", "deployments"}:
                    bad(name, f"{url}: no changes or deployments table")
    e = t.get("expect")
    if not isinstance(e, dict):
        bad(name, "[expect]: missing")
        return t
    for k in sorted(set(e) - EXPECT):
        bad(name, f"expect.{k}: unknown key")
    if e.get("outcome") not in OUTCOMES:
        bad(name, "expect.outcome: expected DIAGNOSIS, FALLBACK or ANSWER")
    if "fallback_code" in e and (e["fallback_code"] not in CODES or e.get("outcome") != "FALLBACK"):
        bad(name, "expect.fallback_code: one of " + ", ".join(sorted(CODES)) + ", with outcome FALLBACK only")
    rc = e.get("root_cause_any")
    if e.get("outcome") == "DIAGNOSIS":
        if not (isinstance(rc, list) and rc and all(isinstance(p, str) and p.strip() for p in rc)):
            bad(name, "expect.root_cause_any: a DIAGNOSIS needs a non-empty list of phrases")
    elif rc is not None:
        bad(name, "expect.root_cause_any: only for outcome DIAGNOSIS")
    ca = e.get("cause_any")
    if ca is not None:
        if not (isinstance(ca, list) and ca and all(isinstance(p, str) and p.strip() for p in ca)):
            bad(name, "expect.cause_any: a non-empty list of phrases")
        if e.get("outcome") != "DIAGNOSIS":
            bad(name, "expect.cause_any: only for outcome DIAGNOSIS")
    elif bundled and e.get("outcome") == "DIAGNOSIS":
        bad(name, "expect.cause_any: every bundled DIAGNOSIS names its cause (docs/eval-suite.md)")
    mc = e.get("must_check", [])
    if not (isinstance(mc, list) and set(mc) <= CHECKS):
        bad(name, "expect.must_check: tools among " + ", ".join(sorted(CHECKS)))
    if "query_mysql" in mc and not mysql.get("datasources"):
        bad(name, "expect.must_check: query_mysql without a datasource")
    if not os.path.isfile(os.path.join(d, "GROUND_TRUTH.md")):
        bad(name, "GROUND_TRUTH.md: missing")
    return t


if not os.path.isdir(suite):
    print(f"check_suite: {suite}: not a folder", file=sys.stderr)
    sys.exit(1)
seen = []
for name in sorted(os.listdir(suite)):
    d = os.path.join(suite, name)
    if os.path.isdir(d):
        if not os.path.isfile(os.path.join(d, "incident.toml")):
            bad(name, "incident.toml: missing")
            continue
        t = check_incident(name, d)
        if t is not None:
            seen.append(t)

if bundled:
    # The bundled suite's own promises (docs/eval-suite.md).
    ex = [t.get("expect", {}) for t in seen]
    need = [("incidents", len(seen), 16),
            ("Chinese incidents", sum(t.get("language") == "zh" for t in seen), 10),
            ("FALLBACK the data cannot answer", sum(e.get("outcome") == "FALLBACK" and e.get("fallback_code") != "MISSING_REQUIRED_CONTEXT" for e in ex), 3),
            ("FALLBACK MISSING_REQUIRED_CONTEXT", sum(e.get("fallback_code") == "MISSING_REQUIRED_CONTEXT" for e in ex), 2)]
    for what, have, least in need:
        if have < least:
            problems.append(f"suite: {have} {what}, at least {least} promised")

if problems:
    print(f"check_suite: {len(problems)} problem(s) in {suite}", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
if skipped:
    print(f"check_suite: data folder absent, shape checked only: {', '.join(sorted(skipped))}")
print(f"check_suite: {len(seen)} incidents in {suite} are well formed")
PY
exit $status
