"""A small simulation library for the bundled eval suite (eval/incidents/).

Every incident spec (eval/tools/specs/*.py) builds one Workspace: log topics,
runbooks, one SQLite database, the incident.toml and a GROUND_TRUTH.md. The
library holds what all incidents share: clocks and timestamp formats, log line
writers for both topic formats (.jsonl records and diagd's plain
`<ts> LEVEL [service] message` lines), background traffic and noise
generators, a changes/deployments table with routine history, and the
rendering of the files.

Deterministic: every random draw comes from random.Random seeded by the
incident name through crc32 (never hash()), no wall clock is read, and every
file is written in a fixed order with sorted lines.
"""

import json
import os
import random
import sqlite3
import zlib


def hms(h, m=0, s=0.0):
    """Seconds since midnight of the incident day."""
    return h * 3600 + m * 60 + s


def _parts(t):
    ms = int(round(t * 1000))
    day, ms = divmod(ms, 86400 * 1000)
    s, msec = divmod(ms, 1000)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return day, h, m, sec, msec


class Clock:
    """Formats offsets (seconds from midnight of `date`, may be negative) as text."""

    def __init__(self, date):
        self.y, self.mo, self.d = (int(x) for x in date.split("-"))

    def _date(self, day_offset):
        # Only small offsets are used (the day before, the day itself).
        import datetime
        base = datetime.date(self.y, self.mo, self.d) + datetime.timedelta(days=day_offset)
        return base.isoformat()

    def iso(self, t):
        day, h, m, s, ms = _parts(t)
        return f"{self._date(day)}T{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"

    def plain(self, t):
        day, h, m, s, ms = _parts(t)
        return f"{self._date(day)} {h:02d}:{m:02d}:{s:02d}.{ms:03d}"

    def sql(self, t):
        day, h, m, s, _ = _parts(int(t))
        return f"{self._date(day)} {h:02d}:{m:02d}:{s:02d}"

    def hm(self, t):
        _, h, m, _, _ = _parts(t)
        return f"{h:02d}:{m:02d}"

    def zulu(self, t):
        day, h, m, s, _ = _parts(int(t))
        return f"{self._date(day)}T{h:02d}:{m:02d}:{s:02d}Z"


class Topic:
    """One log file. Lines keep their time and are written sorted by it."""

    def __init__(self, ws, name, fmt, service):
        self.ws, self.name, self.fmt, self.service = ws, name, fmt, service
        self.rows = []

    def add(self, t, level, message, service=None):
        """Adds one event; returns its rendered line (for GROUND_TRUTH), or None outside the window."""
        if not (self.ws.start <= t <= self.ws.end):
            return None
        row = (int(round(t * 1000)), len(self.rows), level, message, service or self.service)
        self.rows.append(row)
        return self._line(row)

    def _line(self, row):
        ms, _, level, message, service = row
        t = ms / 1000.0
        if self.fmt == "jsonl":
            return json.dumps({"timestamp": self.ws.clock.iso(t), "level": level,
                               "service": service, "message": message},
                              ensure_ascii=False, separators=(",", ":"))
        return f"{self.ws.clock.plain(t)} {level} [{service}] {message}"

    def render(self):
        return "".join(self._line(row) + "\n" for row in sorted(self.rows))

    def count(self, needle):
        return sum(1 for row in self.rows if needle in row[3])

    # ------------------------------------------------------------ generators

    def every(self, start, end, period, fn, level="INFO", jitter=0.25):
        """Roughly periodic lines: fn(r, t) returns a message, (level, message) or None."""
        r = self.ws.rng(f"every:{self.name}:{start}:{period}")
        k = 0
        while True:
            t = start + k * period + r.uniform(0, jitter * period)
            if t >= end:
                break
            self._emit(t, level, fn(r, t))
            k += 1

    def poisson(self, start, end, per_minute, fn, level="INFO"):
        """Random arrivals at per_minute (a number or fn(t) -> number)."""
        r = self.ws.rng(f"poisson:{self.name}:{start}:{end}")
        t = start
        while True:
            rate = per_minute(t) if callable(per_minute) else per_minute
            t += r.expovariate(max(rate, 1e-6) / 60.0)
            if t >= end:
                break
            self._emit(t, level, fn(r, t))

    def burst(self, start, end, n, fn, level="ERROR"):
        """n lines spread at random over [start, end)."""
        r = self.ws.rng(f"burst:{self.name}:{start}:{n}")
        times = sorted(r.uniform(start, end) for _ in range(n))
        return [self._emit(t, level, fn(r, t)) for t in times]

    def _emit(self, t, level, out):
        if out is None:
            return None
        if isinstance(out, tuple):
            level, out = out
        return self.add(t, level, out)


class Workspace:
    """One incident: its window, topics, documents, database and expectations."""

    def __init__(self, name, date, start, end, lang="zh", seed_salt=""):
        self.name, self.lang = name, lang
        self.clock = Clock(date)
        self.date = date
        self.start, self.end = start, end
        self.seed = zlib.crc32(f"diagd-eval:{name}:{seed_salt}".encode())
        self.topics = {}
        self.docs = {}
        self.tables = []          # (name, create_sql, rows)
        self.evidence = []        # (label, text) for GROUND_TRUTH
        self.toml = None
        self.truth = ""

    def rng(self, label):
        return random.Random(self.seed ^ zlib.crc32(label.encode()))

    def topic(self, name, fmt="jsonl", service=None):
        self.topics[name] = Topic(self, name, fmt, service or name)
        return self.topics[name]

    def doc(self, path, text):
        self.docs[path] = text.strip("\n") + "\n"

    def table(self, name, create_sql, rows):
        self.tables.append((name, create_sql.strip(), rows))

    def mark(self, label, text):
        """Records a decisive line, row or section for GROUND_TRUTH.md."""
        if text:
            self.evidence.append((label, text))
        return text

    # ------------------------------------------------------------ changes

    def changes(self, rows, table="changes", routine=(), routine_days=6):
        """The change record: rows of dicts with service, kind, version, at (offset),
        operator, ticket, summary; plus routine history on `routine` services.

        table="deployments" writes the demo's shape (deployed_at, change_summary,
        db_change) instead of (changed_at, kind, summary)."""
        r = self.rng("changes")
        history = []
        for i, service in enumerate(routine):
            # Routine versions count up to just below the service's first version in `rows`.
            known = [c["version"] for c in sorted(rows, key=lambda c: c["at"])
                     if c["service"] == service and c.get("version", "").startswith("v")]
            major, minor = (known[0][1:].split(".")[:2] if known else (str(r.randint(1, 4)), str(r.randint(1, 9))))
            minor = str(max(0, int(minor) - 1))
            patch = 0
            for d in range(routine_days, 0, -1):
                if r.random() < 0.45:
                    patch += r.randint(1, 3)
                    t = -d * 86400 + hms(r.randint(2, 9), r.choice([0, 10, 20, 30, 40, 50]))
                    history.append({"service": service, "kind": "deploy",
                                    "version": f"v{major}.{minor}.{patch}",
                                    "at": t, "operator": r.choice(OPERATORS),
                                    "ticket": f"{r.choice(['OPS', 'REL', 'CHG'])}-{r.randint(1000, 1999)}",
                                    "summary": r.choice(ROUTINE_ZH if self.lang == "zh" else ROUTINE_EN)})
        allrows = sorted(history + list(rows), key=lambda c: (c["at"], c["service"]))
        out = []
        for i, c in enumerate(allrows, 1):
            if table == "deployments":
                out.append((i, c["service"], c.get("version", ""), self.clock.sql(c["at"]),
                            c.get("operator", ""), c.get("ticket", ""), c["summary"],
                            c.get("db_change", "无" if self.lang == "zh" else "none")))
            else:
                out.append((i, c["service"], c.get("kind", "deploy"), c.get("version", ""),
                            self.clock.sql(c["at"]), c.get("operator", ""), c.get("ticket", ""),
                            c["summary"]))
        if table == "deployments":
            self.table("deployments", """
CREATE TABLE deployments (id INTEGER PRIMARY KEY, service TEXT NOT NULL, version TEXT,
  deployed_at TEXT NOT NULL, operator TEXT, ticket TEXT, change_summary TEXT, db_change TEXT)""", out)
        else:
            self.table(table, f"""
CREATE TABLE {table} (id INTEGER PRIMARY KEY, service TEXT NOT NULL, kind TEXT NOT NULL,
  version TEXT, changed_at TEXT NOT NULL, operator TEXT, ticket TEXT, summary TEXT)""", out)

    # ------------------------------------------------------------ output

    def write(self, root):
        """Writes the workspace under root/<name>/."""
        base = os.path.join(root, self.name)
        for name, topic in sorted(self.topics.items()):
            ext = ".jsonl" if topic.fmt == "jsonl" else ".log"
            _write(os.path.join(base, "logs", name + ext), topic.render())
        for path, text in sorted(self.docs.items()):
            _write(os.path.join(base, "docs", path), text)
        if self.tables:
            db = os.path.join(base, "data", "ops.db")
            os.makedirs(os.path.dirname(db), exist_ok=True)
            if os.path.exists(db):
                os.remove(db)
            con = sqlite3.connect(db)
            for name, create, rows in self.tables:
                con.execute(create)
                if rows:
                    marks = ",".join("?" * len(rows[0]))
                    con.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
            con.commit()
            con.execute("VACUUM")
            con.close()
        _write(os.path.join(base, "incident.toml"), self.toml)
        _write(os.path.join(base, "GROUND_TRUTH.md"), self._truth())

    def _truth(self):
        out = [self.truth.strip("\n"), ""]
        if self.evidence:
            out += ["## Decisive lines and rows (generated)", ""]
            for label, text in self.evidence:
                out.append(f"- {label}:")
                out.append("  `" + text.replace("`", "'") + "`")
            out.append("")
        return "\n".join(out)


OPERATORS = ["zhanglei", "wangfang", "liuyang", "chenjing", "zhaomin", "sunhao", "ops-bot"]
ROUTINE_ZH = ["例行发布：依赖升级与单元测试修复", "日志字段规范化（仅日志输出格式）",
              "监控埋点补充，无业务逻辑变更", "文案修改", "升级基础镜像 openjdk 17.0.9",
              "修复管理后台分页 bug"]
ROUTINE_EN = ["routine release: dependency bumps and test fixes", "log field cleanup (log format only)",
              "add metrics, no business logic change", "copy changes", "base image bump openjdk 17.0.9",
              "fix admin pagination bug"]


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# ---------------------------------------------------------------- incident.toml

def _q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def incident_toml(question, language, now, logs_lookback=60, datasource="ops", expect=None,
                  extra_logs=None, comment=None):
    """Renders incident.toml (docs/eval.md) for a workspace of docs/, logs/, data/ops.db."""
    lines = []
    if comment:
        lines += ["# " + c for c in comment.splitlines()] + [""]
    lines += [f"question = {_q(question)}", f"language = {_q(language)}", f"now = {_q(now)}", "",
              "[tools.documents]", 'path = "docs"', "", "[tools.logs]", 'path = "logs"',
              f"default_lookback_minutes = {logs_lookback}"]
    for k, v in sorted((extra_logs or {}).items()):
        lines.append(f"{k} = {v}")
    if datasource:
        lines += ["", f"[tools.mysql.datasources.{datasource}]", 'url = "sqlite:data/ops.db"']
    lines += ["", "[expect]", f"outcome = {_q(expect['outcome'])}"]
    if expect.get("fallback_code"):
        lines.append(f"fallback_code = {_q(expect['fallback_code'])}")
    if expect.get("root_cause_any"):
        lines.append("root_cause_any = [" + ", ".join(_q(p) for p in expect["root_cause_any"]) + "]")
    if expect.get("cause_any"):
        lines.append("cause_any = [" + ", ".join(_q(p) for p in expect["cause_any"]) + "]")
    if expect.get("must_check"):
        lines.append("must_check = [" + ", ".join(_q(p) for p in expect["must_check"]) + "]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- line helpers

def pod(service, n=0):
    """A stable Kubernetes-like pod name for service (n-th replica)."""
    h = zlib.crc32(service.encode())
    suffixes = ["x7k2p", "m4q8z", "t5n3x", "w2k7r", "p9r4t", "h3j6v"]
    return f"{service}-{h:08x}"[:len(service) + 10] + "-" + suffixes[n % len(suffixes)]


def java(pod_name, thread, logger, text):
    return f"{pod_name} [{thread}] {logger} - {text}"


def exec_thread(r):
    return f"http-nio-8080-exec-{r.randint(1, 200)}"


def trace(r):
    return f"{r.getrandbits(64):016x}"


def access(r, method, path, status, rt, upstream, client=None):
    """A gateway access line (nginx-like)."""
    client = client or f"100.64.{r.randint(0, 40)}.{r.randint(2, 250)}"
    urt = "-" if upstream == "-" else f"{max(rt - 0.001, 0):.3f}"
    return (f'{client} "{method} {path} HTTP/1.1" {status} {r.randint(80, 4000)} '
            f"rt={rt:.3f} urt={urt} upstream={upstream} trace_id={trace(r)}")


# ---------------------------------------------------------------- shared noise

def noise_gateway(ws, topic, routes, start=None, end=None, per_minute=6):
    """Healthy background traffic: routes is a list of (method, path, upstream)."""
    start = ws.start if start is None else start
    end = ws.end if end is None else end

    def line(r, t):
        method, path, upstream = r.choice(routes)
        return access(r, method, path, 200, r.uniform(0.008, 0.180), upstream)
    topic.poisson(start, end, per_minute * 0.6, line)
    topic.every(start, end, 300, lambda r, t: access(r, "GET", "/healthz", 200, 0.0, "-",
                                                     client="100.100.0.55"), jitter=0.0)


def noise_cert_reminder(ws, topic, host, days_left, lang="zh"):
    """An hourly, harmless certificate reminder (a distractor)."""
    def line(r, t):
        return ("WARN", f"cert-checker: certificate for {host} expires in {days_left} days")
    topic.every(ws.start - ws.start % 3600 + 3600, ws.end, 3600, line, jitter=0.0)


def noise_redis_blip(ws, topic, at, pod_name, n=4):
    """A short, self-healing Redis timeout burst (a distractor)."""
    topic.burst(at, at + 70, n, lambda r, t: java(
        pod_name, exec_thread(r), "c.s.common.cache.RedisCache",
        "cache read failed, falling back to loader: io.lettuce.core.RedisCommandTimeoutException: "
        "Command timed out after 1 second(s)"), level="WARN")
    topic.add(at + 75, "INFO", java(pod_name, "lettuce-eventExecutorLoop-1-3",
                                    "i.l.core.protocol.ConnectionWatchdog", "Reconnected to redis-cache:6379"))


def noise_jvm_gc(ws, topic, pod_name, heap_mb=2048, start=None, end=None, pause_ms=(8, 40)):
    """Healthy young-GC lines every ~2 min."""
    start = ws.start if start is None else start
    end = ws.end if end is None else end

    def line(r, t):
        used = r.randint(int(heap_mb * 0.25), int(heap_mb * 0.45))
        return java(pod_name, "GC", "gc", f"GC(young) Pause Young (Normal) (G1 Evacuation Pause) "
                    f"{used + r.randint(200, 400)}M->{used}M({heap_mb}M) {r.uniform(*pause_ms):.3f}ms")
    topic.every(start, end, 120, line)
