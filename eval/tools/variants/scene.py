"""One variant's world: the workspace, the services' traffic, the change record and the files.

A class module (answerable.py, nodata.py) draws its story's times and lines
and calls Scene for what every variant shares: where each service logs (its
own topic, or a topic several services share with a `service` field), healthy
traffic with failures from the onset, the change record in the drawn schema
and holder (a table, an audit log topic, or change notices in docs/), the
distractors, incident.toml with its [expect], and GROUND_TRUTH.md.
"""

import math
import os

from simlib import Workspace, hms, java, exec_thread, access, pod, ROUTINE_EN, ROUTINE_ZH
from variants.draw import Change, OPERATORS, rng


def _q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _list(items):
    return "[" + ", ".join(_q(p) for p in items) + "]"


def minutes(m):
    return m * 60.0


class Scene:
    def __init__(self, d, onset, lead_in, tail, earliest=None):
        """onset: when the failure begins; the logs run from lead_in seconds before it (or from
        `earliest`, when a log line must be kept that far back) to tail seconds after it."""
        self.d, self.onset = d, onset
        self.zh = d.lang == "zh"
        self.r = rng(d.seed, "scene")
        start = onset - lead_in
        if earliest is not None:
            start = min(start, earliest - minutes(self.r.randint(10, 40)))
        start = math.floor(start / 60) * 60
        end = math.ceil((onset + tail) / 60) * 60
        self.name = f"{d.seed:06d}-{d.cls}"
        self.ws = Workspace(self.name, d.date, start, end, lang=d.lang)
        self.fail = d.services[0]
        self.others = d.services[1:]
        self.changes = []
        self.distractor_notes = []     # (what, why it is not the cause) for GROUND_TRUTH
        self.notices = []              # change notices in docs/ (holder "doc")
        self._topics = {}
        self.runbooks = {}

    # ------------------------------------------------------------ logging

    def rng(self, label):
        return rng(self.d.seed, label)

    def topic_of(self, service):
        """The topic a service logs to: its own, or the shared multi-service topic."""
        name = self.d.multi_topic or service
        if name not in self._topics:
            fmt = "jsonl" if self.rng(f"fmt:{name}").random() < 0.7 else "log"
            self._topics[name] = self.ws.topic(name, fmt, service)
        return self._topics[name]

    def infra(self, name, fmt="log", service=None):
        if name not in self._topics:
            self._topics[name] = self.ws.topic(name, fmt, service or name)
        return self._topics[name]

    def log(self, service, t, level, message):
        return self.topic_of(service).add(t, level, message, service=service)

    def jlog(self, service, t, level, logger, text, r=None, replica=0):
        r = r or self.r
        return self.log(service, t, level, java(pod(service, replica), exec_thread(r),
                                                f"c.s.{self._pkg(service)}.{logger}", text))

    def _pkg(self, service):
        for s in self.d.services:
            if s.name == service:
                return s.pkg
        return service.split("-")[0]

    def ok_line(self, svc, r):
        oid = f"{r.randint(10**8, 10**9 - 1)}"
        text = (svc.ok_zh if self.zh else svc.ok_en).format(id=oid)
        return f"{text} cost={r.randint(20, 260)}ms"

    def traffic(self, svc, fail, per_minute=2.0, gateway=None, fail_status=500):
        """Healthy operations of svc over the window; fail(r, t) gives a failure's
        (level, message) or None. With a gateway topic, each request leaves an access line."""
        method, path = svc.route.split(" ", 1)
        upstream = f"{svc.name}/10.{self.rng('net').randint(10, 90)}.{self.rng('net2').randint(1, 9)}.7:8080"
        busy_from = self.onset - minutes(90)

        def one(r, t):
            out = fail(r, t) if fail else None
            if out is not None:
                if gateway is not None:
                    gateway.add(t + 0.05, "ERROR", access(r, method, path, fail_status, r.uniform(0.01, 3.1), upstream))
                level, message = out
                self.log(svc.name, t, level, message)
                return None
            if gateway is not None:
                gateway.add(t + 0.05, "INFO", access(r, method, path, 200, r.uniform(0.02, 0.3), upstream))
            self.jlog(svc.name, t, "INFO", "service.MainService", self.ok_line(svc, r), r, r.randint(0, 2))
            return None

        t = self.topic_of(svc.name)
        t.poisson(max(self.ws.start, busy_from), self.ws.end, per_minute, one)
        if self.ws.start < busy_from:
            t.poisson(self.ws.start, busy_from, per_minute / 4, one)

    def gateway(self):
        return self.infra("gateway", "log")

    # ------------------------------------------------------------ changes

    def ticket(self, label, prefix=None):
        return self.d.ticket(self.rng(f"ticket:{label}"), prefix)

    def change(self, target, at, summary, label, kind="config", role="routine", prefix=None):
        c = Change(target=target, at=at, summary=summary, ticket=self.ticket(label, prefix),
                   actor=self.rng(f"actor:{label}").choice(OPERATORS), kind=kind, role=role)
        self.changes.append(c)
        return c

    def cause(self, target, at, summary_en, summary_zh, kind="config"):
        """The cause: written in the question's language, or the other one when drawn so."""
        zh = self.zh != self.d.distractors["other_lang"]
        c = self.change(target, at, summary_zh if zh else summary_en, "cause", kind, "cause")
        if self.d.distractors["other_lang"]:
            self.distractor_notes.append(("the cause is recorded in the other language than the question", "it is still the cause"))
        return c

    def routine_history(self):
        r = self.rng("routine")
        for svc in self.d.services:
            version = [r.randint(1, 6), r.randint(0, 12), 0]
            for day in range(6, 0, -1):
                if r.random() < 0.5:
                    version[2] += r.randint(1, 3)
                    at = -day * 86400 + hms(r.randint(2, 10), r.choice([0, 15, 30, 45]))
                    text = r.choice(ROUTINE_ZH if self.zh else ROUTINE_EN)
                    c = self.change(svc.name, at, f"{svc.name} v{'.'.join(map(str, version))}: {text}",
                                    f"routine:{svc.name}:{day}", kind="deploy")
                    c.ticket = f"{self.d.prefix}-{r.randint(1000, 99999)}"

    def innocent_change(self, allow_same=True):
        """A harmless change shortly before the onset: another service, or log format only."""
        r = self.rng("innocent")
        at = self.onset - minutes(r.randint(2, 15))
        same = allow_same and r.random() < 0.4
        target = self.fail.name if same else self.others[-1].name
        if same:
            text = ("日志格式调整：JSON 字段 timestamp 改名为 ts（仅日志输出，不改业务逻辑）" if self.zh else
                    "log format: rename JSON field timestamp to ts (log output only, no logic change)")
        else:
            text = r.choice([("文案调整：活动页标题", "copy change: campaign page title"),
                             ("新增监控埋点，无业务逻辑变更", "add metrics, no business logic change"),
                             ("开启 new-banner 灰度 10%（仅前端展示）", "enable new-banner flag for 10% (front end only)")])
            text = text[0] if self.zh else text[1]
        c = self.change(target, at, f"{target}: {text}", "innocent", kind="config", role="innocent")
        self.distractor_notes.append((f"{c.ticket} at {self.ws.clock.hm(at)} ({target})",
                                      "recent, but its content touches nothing the failing side shows"))
        return c

    def after_onset_change(self):
        r = self.rng("after")
        at = self.onset + minutes(r.randint(4, 20))
        if at >= self.ws.end - 60:
            at = self.onset + minutes(3)
        n = r.choice([3, 4, 6])
        text = r.choice([(f"故障处理：重启 {self.fail.name} 全部 Pod", f"incident response: restart all {self.fail.name} pods"),
                         (f"故障处理：{self.fail.name} 扩容 {n} -> {2 * n} 副本", f"incident response: scale {self.fail.name} {n} -> {2 * n} replicas")])
        c = self.change(self.fail.name, at, text[0] if self.zh else text[1], "after", kind="ops", role="after-onset")
        self.distractor_notes.append((f"{c.ticket} at {self.ws.clock.hm(at)}", "made after the onset (a response to it)"))
        return c

    def louder_error(self, n):
        """Many ERRORs in another service, all window long: louder than the failure, unrelated."""
        svc = self.others[0]
        r = self.rng("louder")
        kind = r.randrange(3)
        texts = [("重复提交被拦截 org.springframework.dao.DuplicateKeyException: Duplicate entry for key 'uk_user_request'",
                  "duplicate submit rejected: org.springframework.dao.DuplicateKeyException: Duplicate entry for key 'uk_user_request'"),
                 ("渠道回调验签失败，已丢弃 reason=SIGN_MISMATCH", "channel callback signature mismatch, dropped reason=SIGN_MISMATCH"),
                 ("参数校验失败 field=phone reason=INVALID_FORMAT", "request validation failed field=phone reason=INVALID_FORMAT")]
        text = texts[kind][0] if self.zh else texts[kind][1]
        self.topic_of(svc.name).burst(self.ws.start, self.ws.end, n, lambda r2, t: (
            self.jlog(svc.name, t, "ERROR", "web.RequestHandler", text, r2), None)[1])
        meaning = [("用户重复提交，按设计拒绝，无需处理。", "a duplicate submit, rejected on purpose; nothing to do."),
                   ("渠道用旧证书回调，丢弃即可，渠道会重发。", "the channel called back with an old key; it resends."),
                   ("客户端传了非法参数，按设计拒绝。", "a client sent a bad field; rejected on purpose.")][kind]
        head = "## 常见错误" if self.zh else "## Common errors"
        self.runbooks[f"runbooks/{svc.name}.md"] = (
            f"# {svc.name}\n\n{head}\n`{text.split(':')[0].split(' reason')[0].split(' field')[0]}`: "
            f"{meaning[0] if self.zh else meaning[1]}\n")
        self.distractor_notes.append((f"{svc.name}'s {n} ERRORs ({text[:40]}...)", "another service, all window long, expected per its runbook"))

    # ------------------------------------------------------------ records

    def holder_ref(self):
        """Where a runbook says changes of the cause's kind are recorded."""
        s, d = self.d.schema, self.d
        if d.holder == "log":
            return (f"配置与运维操作由流水线执行，审计记录在日志主题 `{d.audit_topic}`（不在 `{s.table}` 表里）。" if self.zh else
                    f"Configuration and operations changes go through the pipeline; their audit trail is the `{d.audit_topic}` log topic (not the `{s.table}` table).")
        if d.holder == "doc":
            return ("紧急变更先发变更通告（文档 `changes/` 目录，按单号命名），事后才补录到变更表。" if self.zh else
                    "Emergency changes are announced first as change notices (documents under `changes/`, named by ticket) and entered into the change table later.")
        return (f"变更记录在数据源 `{d.datasource}` 的 `{s.table}` 表（`{s.time_col}` 为执行时间，`{s.text_col}` 为内容）。" if self.zh else
                f"Changes are recorded in the `{s.table}` table of datasource `{d.datasource}` (`{s.time_col}` is when it was applied, `{s.text_col}` what it did).")

    def _row(self, c):
        s = self.d.schema
        row = [c.ticket, c.target]
        if s.kind_col:
            row.append(c.kind)
        row += [self.ws.clock.sql(c.at), c.actor, c.summary]
        return row

    def render_change(self, c):
        """The cause as the holder shows it (for GROUND_TRUTH)."""
        if self.d.holder == "log" and c.role != "routine":
            return self._audit_line(c)
        if self.d.holder == "doc" and c.role == "cause":
            return f"docs/changes/{c.ticket}.md: {c.summary}"
        return " | ".join(str(x) for x in self._row(c))

    def _audit_line(self, c):
        return f"change {c.ticket} applied target={c.target} by={c.actor} kind={c.kind}: {c.summary}"

    def write_records(self):
        s, d = self.d.schema, self.d
        in_table = []
        audit = self.infra(d.audit_topic, "log", "pipeline") if d.holder == "log" else None
        for c in sorted(self.changes, key=lambda c: (c.at, c.ticket)):
            if c.role != "routine" and audit is not None and self.ws.start <= c.at <= self.ws.end:
                audit.add(c.at, "INFO", self._audit_line(c))
            elif c.role == "cause" and d.holder == "doc":
                self._notice(c)
            else:
                in_table.append(c)
        if audit is not None:
            audit.every(self.ws.start, self.ws.end, 1800, lambda r, t: f"sync completed: 0 drift, {r.randint(40, 90)} resources in sync", jitter=0.1)
        if d.holder == "doc":
            r = self.rng("old-notices")
            for i in range(2):
                old = Change(self.others[i].name, -86400 * r.randint(3, 20) + hms(r.randint(1, 5)),
                             (f"{self.others[i].name} 数据库版本升级（窗口内只读 10 分钟）" if self.zh else
                              f"{self.others[i].name} database minor upgrade (read-only for 10 minutes)"),
                             self.ticket(f"notice{i}"), r.choice(OPERATORS), "maintenance", "routine")
                self._notice(old)
        rows = []
        for i, c in enumerate(in_table, 1):
            row = self._row(c)
            rows.append(tuple(row) if s.id_col == "id" else (i, *row))
        self.ws.table(s.table, s.create_sql(), rows)

    def _notice(self, c):
        if self.zh:
            text = (f"# 变更通告 {c.ticket}\n\n- 对象：{c.target}\n- 执行时间：{self.ws.clock.sql(c.at)} UTC\n"
                    f"- 执行人：{c.actor}\n\n## 内容\n{c.summary}\n")
        else:
            text = (f"# Change notice {c.ticket}\n\n- Target: {c.target}\n- Applied: {self.ws.clock.sql(c.at)} UTC\n"
                    f"- By: {c.actor}\n\n## What\n{c.summary}\n")
        self.ws.doc(f"changes/{c.ticket}.md", text)

    # ------------------------------------------------------------ output

    def finish(self, question, expect, truth, max_lookback=None):
        """Writes the shared runbooks, the records, incident.toml and GROUND_TRUTH.md."""
        from specs import _common
        self.ws.doc("process/oncall.md", _common.ONCALL_ZH if self.zh else _common.ONCALL_EN)
        for path, text in sorted(self.runbooks.items()):
            self.ws.doc(path, text)
        self.write_records()
        span = math.ceil((self.ws.end - self.ws.start) / 60)
        lines = [f"# Generated by eval/tools/variants.py (seed {self.d.seed}, class {self.d.cls}).", "",
                 f"question = {_q(question)}", f"language = {_q(self.d.lang)}",
                 f"now = {_q(self.ws.clock.zulu(self.ws.end))}", "",
                 "[tools.documents]", 'path = "docs"', "", "[tools.logs]", 'path = "logs"',
                 "default_lookback_minutes = 60", f"max_lookback_minutes = {max(span + 30, max_lookback or 0, 120)}", "",
                 f"[tools.mysql.datasources.{self.d.datasource}]", 'url = "sqlite:data/ops.db"', "",
                 "[expect]", f"outcome = {_q(expect['outcome'])}"]
        for key in ("root_cause_any", "cause_any", "must_check"):
            if expect.get(key):
                lines.append(f"{key} = {_list(expect[key])}")
        self.ws.toml = "\n".join(lines) + "\n"
        notes = "".join(f"- {what}: {why}\n" for what, why in self.distractor_notes) or "- none\n"
        self.ws.truth = (f"# {self.name}\n\nClass `{self.d.cls}`, expected {expect['outcome']}; "
                         f"question in {self.d.lang}; change record `{self.d.schema.table}` in datasource "
                         f"`{self.d.datasource}`; cause held in: {self.d.holder}.\n\n{truth.strip()}\n\n"
                         f"**Distractors:**\n\n{notes}")
        return self.ws


def write(ws, root):
    ws.write(root)
    return os.path.join(root, ws.name)
