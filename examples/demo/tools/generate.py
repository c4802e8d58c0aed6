#!/usr/bin/env python3
"""Generate the demo workspace's logs and orders.sql from one simulated incident.

Deterministic: fixed seeds, no clock, no hashing of Python objects, so running
it twice gives byte-identical files. Run it from anywhere:

    python3 examples/demo/tools/generate.py          # rewrite logs/ and data/orders.sql
    python3 examples/demo/tools/generate.py --check # also verify docs <-> logs <-> rows agree
    examples/demo/data/build-orders-db              # then rebuild data/orders.db

The story (all times UTC, 2026-11-29, the demo's `now` is 10:30:00):
  07:30-10:02  normal evening traffic, with noise: a Redis blip at 08:40, Kafka
               consumer lag at 09:05, an inventory-service deploy at 09:20, a
               gateway rate-limit change at 09:48, an hourly certificate warning.
  10:02        payment-service v2.3.1 rolls out. Its new duplicate-payment check
               runs `SELECT ... FROM payment_record WHERE user_id = ? AND
               created_at >= ? ...`; payment_record (~18.7M rows) has no index
               on user_id, so every payment does a full table scan on payment-db.
  10:03-10:30  scans pile up, payment-db saturates, the payment-service Hikari
               pools (8 per pod) run dry, order-service's calls time out after
               10 s (one retry), the gateway answers POST /api/v1/orders with
               504 (15 s proxy_read_timeout) or 500.

The simulation is small but causal: payment attempts queue FIFO for pool
connections, each scan's duration grows with the scans running beside it,
order-service retries on read timeouts, users retry failed orders. Every log
line, row and count comes out of that one run.
"""

import argparse
import bisect
import heapq
import json
import math
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.dirname(HERE)
SEED = 20261129


def hms(h, m, s=0.0):
    return h * 3600 + m * 60 + s


START = hms(7, 30)
END = hms(10, 30)            # the workspace's `now`
DEPLOY = hms(10, 2)          # payment-service v2.3.1 rollout starts
REDIS_BLIP = (hms(8, 40, 5), hms(8, 41, 22))
KAFKA_LAG = (hms(9, 4, 30), hms(9, 14, 0))
INV_DEPLOY = hms(9, 20)
GW_RELOAD = hms(9, 48, 3)

# Configuration facts, shared with the runbooks (docs/). Keep them in step.
PAY_POOL = 8                 # payment-service HikariCP maximumPoolSize per pod
PAY_CONN_TIMEOUT = 5.0       # payment-service HikariCP connectionTimeout (s)
ORDER_READ_TIMEOUT = 10.0    # order-service -> payment-service Feign readTimeout (s)
ORDER_RETRY_BACKOFF = 0.5    # one retry on read timeout, after 500 ms
GW_READ_TIMEOUT = 15.0       # gateway proxy_read_timeout (s)
TABLE_ROWS = 18_731_204      # payment_record rows at 07:30
HIKARI_PAY = "HikariPool-1 - Connection is not available, request timed out after 5000ms."
READ_TIMED_OUT = "feign.RetryableException: Read timed out executing POST http://payment-service/internal/v1/payments"

ORDER_PODS = [("order-service-5d8c7b6f9-x7k2p", "10.12.2.15"),
              ("order-service-5d8c7b6f9-m4q8z", "10.12.2.16")]
INV_OLD = "inventory-service-6f8d7c5b9-w2k7r"
INV_NEW = "inventory-service-84c6d9f7b-t5n3x"


# ---------------------------------------------------------------- formatting

def _parts(t):
    ms = int(round(t * 1000))
    s, msec = divmod(ms, 1000)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return h, m, sec, msec


def iso(t):
    h, m, s, ms = _parts(t)
    return f"2026-11-29T{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"


def plain(t):
    h, m, s, ms = _parts(t)
    return f"2026-11-29 {h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def sqlts(t):
    h, m, s, _ = _parts(math.floor(t))
    return f"2026-11-29 {h:02d}:{m:02d}:{s:02d}"


def hhmm(t):
    h, m, s, _ = _parts(t)
    return f"{h:02d}:{m:02d}:{s:02d}"


class Topic:
    """One log file. Lines are kept with their time and written sorted."""

    def __init__(self, name, service, jsonl):
        self.name, self.service, self.jsonl = name, service, jsonl
        self.rows = []

    def add(self, t, level, message, service=None):
        if START <= t < END:
            self.rows.append((int(round(t * 1000)), len(self.rows), level, message, service))

    def render(self):
        out = []
        for ms, _, level, message, service in sorted(self.rows):
            t = ms / 1000.0
            svc = service or self.service
            if self.jsonl:
                out.append(json.dumps({"timestamp": iso(t), "level": level, "service": svc,
                                       "message": message},
                                      ensure_ascii=False, separators=(",", ":")))
            else:
                out.append(f"{plain(t)} {level} [{svc}] {message}")
        return "\n".join(out) + "\n"


GW = Topic("gateway", "gateway", False)
ORD = Topic("order-service", "order-service", True)
PAY = Topic("payment-service", "payment-service", True)
PDB = Topic("payment-db", "payment-db", False)
INV = Topic("inventory-service", "inventory-service", True)


def rnd(seed_offset):
    return random.Random(SEED * 1000 + seed_offset)


R_ORD = rnd(1)     # order arrivals, users, amounts
R_PAY = rnd(2)     # payment-service behaviour
R_GW = rnd(3)      # gateway background traffic
R_INV = rnd(4)     # inventory-service
R_DB = rnd(5)      # payment-db background
R_ID = rnd(6)      # ids


def trace_id():
    return f"{R_ID.getrandbits(128):032x}"


def thread(r):
    return f"http-nio-8080-exec-{r.randint(1, 200)}"


def ms_of(seconds):
    return int(round(seconds * 1000))


# ---------------------------------------------------------------- payment-db

class PaymentDb:
    """Full scans of payment_record share the disk: each is slower when others run."""

    def __init__(self):
        self.scans = []      # (start, end)

    def running(self, t):
        return sum(1 for s, e in self.scans if s <= t < e)

    def scan_seconds(self, start, r):
        n = self.running(start)
        return 5.2 * (1 + 0.9 * n) * r.uniform(0.85, 1.2)

    def rows_at(self, t):
        return TABLE_ROWS + int((t - START) * 2.3)


DB = PaymentDb()


# ---------------------------------------------------------------- payment-service

class PayPod:
    def __init__(self, name, ip, version, ready, gone):
        self.name, self.ip, self.version = name, ip, version
        self.ready, self.gone = ready, gone
        self.free = [START] * PAY_POOL
        self.busy = []       # (start, end) of every connection lease
        self.waits = []      # (arrival, got-or-gave-up) of every wait
        self.timeouts = []   # when a wait gave up (connectionTimeout)

    def serving(self, t):
        return self.ready <= t < self.gone

    def alive(self, t):
        return self.ready - 25 <= t < self.gone + 3

    def acquire(self, a):
        """FIFO approximation of a Hikari pool: the earliest free connection."""
        i = min(range(PAY_POOL), key=lambda j: (self.free[j], j))
        start = max(a + 0.0015, self.free[i])
        if start - a > PAY_CONN_TIMEOUT:
            self.waits.append((a, a + PAY_CONN_TIMEOUT))
            self.timeouts.append(a + PAY_CONN_TIMEOUT)
            return None, i
        if start > a + 0.002:
            self.waits.append((a, start))
        return start, i

    def lease(self, i, start, end):
        self.free[i] = end
        self.busy.append((start, end))

    def stats(self, t):
        active = sum(1 for s, e in self.busy if s <= t < e)
        waiting = sum(1 for s, e in self.waits if s <= t < e)
        return active, waiting

    def window(self, t0, t1):
        """Peaks over [t0, t1): (max active, max waiting, connection timeouts)."""
        def peak(intervals):
            edges = []
            for s, e in intervals:
                if s < t1 and e > t0:
                    edges.append((max(s, t0), 1))
                    edges.append((e, -1))
            level = best = 0
            for _, d in sorted(edges, key=lambda x: (x[0], x[1])):
                level += d
                best = max(best, level)
            return best
        return (peak(self.busy), peak(self.waits),
                sum(1 for x in self.timeouts if t0 <= x < t1))

    def log(self, t, level, text, thr=None):
        PAY.add(t, level, f"{self.name} [{thr or thread(R_PAY)}] {text}")


PAY_PODS = [
    PayPod("payment-service-5b7f4c9d8-q7w2n", "10.12.4.17", "v2.3.0", START - 86400, hms(10, 2, 24.5)),
    PayPod("payment-service-5b7f4c9d8-h3j6v", "10.12.4.18", "v2.3.0", START - 86400, hms(10, 2, 49.4)),
    PayPod("payment-service-7c9d6b8f5-k2x8m", "10.12.4.21", "v2.3.1", hms(10, 2, 24.1), 10 ** 9),
    PayPod("payment-service-7c9d6b8f5-p9r4t", "10.12.4.22", "v2.3.1", hms(10, 2, 48.9), 10 ** 9),
]


def pay_leader(t):
    return PAY_PODS[0] if t < PAY_PODS[0].gone else PAY_PODS[2]


CHANNELS = [("alipay", 0.55), ("wechat", 0.38), ("unionpay", 0.07)]
DECLINES = [("BALANCE_NOT_ENOUGH", 0.5), ("RISK_REJECTED", 0.25), ("CARD_EXPIRED", 0.15),
            ("PAY_PASSWORD_LOCKED", 0.10)]


def pick(r, weighted):
    x = r.random() * sum(w for _, w in weighted)
    for value, w in weighted:
        x -= w
        if x <= 0:
            return value
    return weighted[-1][0]


HIKARI_STACK = (
    "\norg.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection"
    "\n\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)"
    "\n\tat com.shop.pay.risk.DuplicatePayGuard.check(DuplicatePayGuard.java:58)"
    "\n\t... 96 common frames omitted"
    f"\nCaused by: java.sql.SQLTransientConnectionException: {HIKARI_PAY}"
    "\n\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)"
    "\n\t... 104 common frames omitted"
)


USER_HISTORY = {}


def history_rows(user):
    """How many payments the user made in the last 90 days (LIMIT 20): fixed per user."""
    if user not in USER_HISTORY:
        USER_HISTORY[user] = R_PAY.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 17, 20, 20])
    return USER_HISTORY[user]


def risk_sql(user, t):
    since = f"2026-08-31 {hhmm(t)}"
    return ("SELECT id, order_id, amount, status, channel, created_at FROM payment_record "
            f"WHERE user_id = {user} AND created_at >= '{since}' ORDER BY created_at DESC LIMIT 20")


def slow_log(t, qt, lock, sent, examined, host, conn, sql, user="pay_app"):
    PDB.add(t, "WARN", f"slow query: Query_time: {qt:.6f} Lock_time: {lock:.6f} Rows_sent: {sent} "
                       f"Rows_examined: {examined} user={user} host={host} conn_id={conn} db=payment "
                       f"sql=\"{sql}\"")


CONN_IDS = iter(range(1_883_400, 1_999_999, 7))


def pay_attempt(pod, a, order, attempt):
    """payment-service handles POST /internal/v1/payments arriving at `a`.

    Returns (response_seconds, outcome, code): outcome is 'ok', 'declined' or
    'error' (HTTP 500); response_seconds may exceed the caller's timeout."""
    r = R_PAY
    thr = thread(r)
    tid = order["trace"]
    if pod.version == "v2.3.0":
        start, i = pod.acquire(a)
        hold = r.uniform(0.006, 0.022)
        pod.lease(i, start, start + hold)
        db_done = start + hold
    else:
        start, i = pod.acquire(a)
        if start is None:
            t_err = a + PAY_CONN_TIMEOUT + r.uniform(0.001, 0.004)
            pod.log(t_err, "ERROR",
                    f"c.s.pay.web.GlobalExceptionHandler - POST /internal/v1/payments 处理失败，返回 500 "
                    f"PAY_DB_UNAVAILABLE orderId={order['id']} traceId={tid} cost={ms_of(t_err - a)}ms: "
                    f"java.sql.SQLTransientConnectionException: {HIKARI_PAY}{HIKARI_STACK}", thr)
            return t_err - a + r.uniform(0.004, 0.012), "error", "PAY_DB_UNAVAILABLE"
        q = DB.scan_seconds(start, r)
        if 9.4 < start + q - a <= 10.2:
            # keep clear of the caller's 10 s timeout: done well before it, or after it
            q += 10.2 - (start + q - a) + r.uniform(0.0, 0.4)
        end = start + q
        DB.scans.append((start, end))
        pod.lease(i, start, end)
        sent = history_rows(order["user"])
        slow_log(end, q, r.uniform(0.00008, 0.00016), sent, DB.rows_at(end), pod.ip,
                 next(CONN_IDS), risk_sql(order["user"], start))
        pod.log(end + 0.002, "WARN",
                f"c.s.pay.infra.SlowSqlInterceptor - slow sql cost={ms_of(q)}ms "
                f"mapper=PaymentRecordMapper.selectRecentByUserId userId={order['user']} rows={sent} "
                f"traceId={tid}", thr)
        db_done = end
        if end - a > ORDER_READ_TIMEOUT:
            pod.log(end + 0.004, "WARN",
                    f"c.s.pay.service.PaymentService - 调用方已超时，放弃提交渠道 orderId={order['id']} "
                    f"elapsed={ms_of(end - a)}ms deadline={ms_of(ORDER_READ_TIMEOUT)}ms traceId={tid}", thr)
            return end - a + 0.01, "abandoned", None
    channel = order["channel"]
    chan = r.uniform(0.07, 0.32)
    if db_done - a < 5.0 and r.random() < 0.012:
        pod.log(db_done + chan, "WARN",
                f"c.s.pay.channel.{'WechatPay' if channel == 'wechat' else 'Alipay'}Client - 渠道返回 "
                f"SYSTEMERROR，1000ms 后重试 (1/3) orderId={order['id']} traceId={tid}", thr)
        chan += 1.0 + r.uniform(0.08, 0.3)
    done = db_done + chan + r.uniform(0.004, 0.015)
    if order["decline"] and attempt == 1:
        code = order["decline"]
        pod.log(done, "WARN",
                f"c.s.pay.service.PaymentService - 支付被拒 orderId={order['id']} channel={channel} "
                f"errorCode={code} cost={ms_of(done - a)}ms traceId={tid}", thr)
        return done - a + 0.003, "declined", code
    order["payment_id"] = f"P{order['id'] % 10 ** 14:014d}{R_ID.randint(100000, 999999)}"
    pod.log(done, "INFO",
            f"c.s.pay.service.PaymentService - 支付成功 orderId={order['id']} paymentId={order['payment_id']} "
            f"channel={channel} amount={order['amount']:.2f} cost={ms_of(done - a)}ms traceId={tid}", thr)
    push(done + r.uniform(1.0, 4.0), "notify", order)
    return done - a + 0.003, "ok", None


def pay_route(t):
    pods = [p for p in PAY_PODS if p.serving(t)]
    return R_PAY.choice(pods)


def background_pay_work(kind, t, payload):
    """Non-payment work that needs a pool connection: channel notifies, jobs."""
    r = R_PAY
    if kind == "notify":
        order = payload
        pod = pay_route(t)
        start, i = pod.acquire(t)
        thr = thread(r)
        if start is None:
            pod.log(t + PAY_CONN_TIMEOUT + 0.002, "ERROR",
                    f"c.s.pay.web.NotifyController - 渠道回调处理失败 paymentId={order['payment_id']} "
                    f"channel={order['channel']}，渠道将重试: "
                    f"java.sql.SQLTransientConnectionException: {HIKARI_PAY}", thr)
            return
        hold = r.uniform(0.004, 0.012) * (1 + 0.4 * DB.running(start))
        pod.lease(i, start, start + hold)
        return
    pod = pay_leader(t)
    if kind == "sync":
        start, i = pod.acquire(t)
        if start is None:
            pod.log(t + PAY_CONN_TIMEOUT + 0.003, "ERROR",
                    "c.s.pay.job.PaymentStatusSyncJob - 同步处理中支付单失败，下个周期重试: "
                    f"java.sql.SQLTransientConnectionException: {HIKARI_PAY}", "scheduling-1")
            return
        hold = r.uniform(0.02, 0.05) * (1 + 0.4 * DB.running(start))
        pod.lease(i, start, start + hold)
        pod.log(start + hold + 0.01, "INFO",
                f"c.s.pay.job.PaymentStatusSyncJob - 同步处理中支付单 scanned={r.randint(0, 6)} "
                f"updated={r.randint(0, 2)} cost={ms_of(hold + 0.01)}ms", "scheduling-1")
    elif kind == "reconcile":
        start, i = pod.acquire(t)
        h = int(t // 3600)
        window = f"[2026-11-29 {h - 1:02d}:00:00,2026-11-29 {h:02d}:00:00)"
        if start is None:
            pod.log(t + PAY_CONN_TIMEOUT + 0.002, "ERROR",
                    f"c.s.pay.job.ReconcileJob - 对账任务失败 window={window}，10 分钟后重试: "
                    f"java.sql.SQLTransientConnectionException: {HIKARI_PAY}", "scheduling-1")
            return
        q = r.uniform(1.25, 1.9) * (1 + 0.55 * DB.running(start))
        pod.lease(i, start, start + q)
        examined = r.randint(41000, 58000)
        sql = ("SELECT channel, status, COUNT(*) AS cnt, SUM(amount) AS total FROM payment_record "
               f"WHERE created_at >= '2026-11-29 {h - 1:02d}:00:00' AND created_at < '2026-11-29 {h:02d}:00:00' "
               "GROUP BY channel, status")
        slow_log(start + q, q, r.uniform(0.0001, 0.0002), 9, examined, pod.ip, next(CONN_IDS), sql)
        pod.log(start + q + 0.002, "WARN",
                f"c.s.pay.infra.SlowSqlInterceptor - slow sql cost={ms_of(q)}ms "
                f"mapper=ReconcileMapper.sumByChannel window={window} rows=9", "scheduling-1")
        pod.log(start + q + 0.09, "INFO",
                f"c.s.pay.job.ReconcileJob - 对账完成 window={window} records={examined} diff=0 "
                f"cost={ms_of(q + 0.09)}ms", "scheduling-1")


# ---------------------------------------------------------------- order flow

EVENTS = []
_SEQ = [0]


def push(t, kind, payload=None):
    _SEQ[0] += 1
    heapq.heappush(EVENTS, (t, _SEQ[0], kind, payload))


ORDERS = []
PAYMENTS = []         # dicts: order_id, status, error_code, latency_ms, created_at(t), done(t)
USERS = [R_ORD.randint(1_000_000, 1_999_999) for _ in range(1400)]
SKUS = [f"SKU-{100000 + R_ORD.randint(1, 4000)}" for _ in range(300)]
USED_ORDER_IDS = set()


def order_id(t):
    h, m, s, _ = _parts(t)
    while True:
        oid = int(f"20261129{h:02d}{m:02d}{s:02d}{R_ID.randint(0, 9999):04d}")
        if oid not in USED_ORDER_IDS:
            USED_ORDER_IDS.add(oid)
            return oid


def amount(r):
    v = math.exp(r.gauss(math.log(129), 0.85))
    v = min(max(v, 6.9), 4999)
    return round(v) - 0.1 if r.random() < 0.6 else float(round(v))


def olog(pod, t, level, text, thr=None):
    ORD.add(t, level, f"{pod[0]} [{thr or thread(R_ORD)}] {text}")


def in_blip(t):
    return REDIS_BLIP[0] <= t < REDIS_BLIP[1]


def new_order(t, user=None, retry_of=None):
    if t >= END:
        return
    r = R_ORD
    pod = ORDER_PODS[r.randrange(2)]
    tid = trace_id()
    thr = thread(r)
    if retry_of is None and r.random() < 0.018:
        reason = pick(r, [("STOCK_NOT_ENOUGH", 0.6), ("COUPON_EXPIRED", 0.3), ("ADDRESS_INVALID", 0.1)])
        extra = f" sku={r.choice(SKUS)}" if reason == "STOCK_NOT_ENOUGH" else ""
        olog(pod, t + 0.012, "WARN",
             f"c.s.order.web.OrderController - 下单校验失败 userId={user or r.choice(USERS)} "
             f"reason={reason}{extra} traceId={tid}", thr)
        gw_access(t + 0.015, "POST /api/v1/orders", 400, r.randint(96, 140), 0.015, pod, tid)
        return
    o = {
        "id": order_id(t), "user": user or r.choice(USERS), "t": t, "pod": pod, "trace": tid,
        "thr": thr, "amount": (retry_of or {}).get("amount") or amount(r),
        "items": r.choice([1, 1, 1, 2, 2, 3, 4]), "channel": pick(r, CHANNELS),
        "decline": pick(r, DECLINES) if r.random() < 0.03 else None,
        "status": None, "final": None, "attempts": 0, "retry_of": retry_of,
    }
    ORDERS.append(o)
    pre = r.uniform(0.025, 0.065)
    if in_blip(t):
        pre += 1.0 + r.uniform(0.002, 0.02)
        olog(pod, t + pre - 0.01, "WARN",
             f"c.s.order.cache.IdempotentTokenCache - Redis 访问超时，降级为数据库校验 userId={o['user']} "
             f"traceId={tid}: io.lettuce.core.RedisCommandTimeoutException: Command timed out after 1 second(s)",
             thr)
    push(t + pre, "attempt", (o, 1))


def attempt(a, o, k):
    o["attempts"] = k
    pod = pay_route(a)
    resp, outcome, code = pay_attempt(pod, a, o, k)
    if resp <= ORDER_READ_TIMEOUT and outcome != "abandoned":
        done = a + resp
        status = {"ok": "SUCCESS", "declined": "FAILED", "error": "FAILED"}[outcome]
        PAYMENTS.append({"order": o, "status": status, "code": code, "latency": ms_of(resp),
                         "t": a, "done": done})
        finish(o, done + R_ORD.uniform(0.003, 0.01), outcome, code, resp)
        return
    done = a + ORDER_READ_TIMEOUT + R_ORD.uniform(0.003, 0.02)
    PAYMENTS.append({"order": o, "status": "TIMEOUT", "code": "READ_TIMEOUT", "latency": ms_of(done - a),
                     "t": a, "done": done})
    if k == 1:
        olog(o["pod"], done, "WARN",
             f"c.s.order.client.PaymentClient - 调用支付服务超时，500ms 后重试 orderId={o['id']} attempt=1/2 "
             f"cost={ms_of(done - a)}ms traceId={o['trace']}: {READ_TIMED_OUT}", o["thr"])
        push(done + ORDER_RETRY_BACKOFF + R_ORD.uniform(0.001, 0.006), "attempt", (o, 2))
    else:
        finish(o, done + 0.004, "timeout", "READ_TIMEOUT", done - a)


TIMEOUT_STACK = (
    f"\n{READ_TIMED_OUT}"
    "\n\tat feign.FeignException.errorExecuting(FeignException.java:268)"
    "\n\tat com.shop.order.service.OrderService.payOrder(OrderService.java:214)"
    "\n\t... 87 common frames omitted"
    "\nCaused by: java.net.SocketTimeoutException: Read timed out"
    "\n\tat java.base/sun.nio.ch.NioSocketImpl.timedFinishRead(NioSocketImpl.java:288)"
    "\n\t... 12 common frames omitted"
)


def finish(o, t, outcome, code, pay_resp):
    r = R_ORD
    pod, tid, thr = o["pod"], o["trace"], o["thr"]
    o["final"] = t
    total = t - o["t"]
    if outcome == "ok":
        o["status"] = "PAID"
        olog(pod, t, "INFO",
             f"c.s.order.service.OrderService - 下单成功 orderId={o['id']} userId={o['user']} "
             f"amount={o['amount']:.2f} items={o['items']} attempts={o['attempts']} payCost={ms_of(pay_resp)}ms "
             f"cost={ms_of(total)}ms traceId={tid}", thr)
        if r.random() < 0.02:
            tc = t + r.uniform(60, 1500)
            o["cancel"] = tc
            olog(pod, tc, "INFO",
                 f"c.s.order.service.OrderService - 用户取消订单，已发起退款 orderId={o['id']} "
                 f"userId={o['user']} amount={o['amount']:.2f} traceId={trace_id()}")
            inv_release(tc + 0.05, o, "ORDER_CANCELLED")
    elif outcome == "declined":
        o["status"] = "FAILED"
        o["code"] = code
        olog(pod, t, "WARN",
             f"c.s.order.service.OrderService - 支付被拒，订单置为 FAILED orderId={o['id']} userId={o['user']} "
             f"errorCode={code} payCost={ms_of(pay_resp)}ms traceId={tid}", thr)
        inv_release(t + 0.03, o, "ORDER_FAILED")
    elif outcome == "error":
        o["status"] = "FAILED"
        o["code"] = code
        olog(pod, t, "ERROR",
             f"c.s.order.service.OrderService - 下单支付失败，订单置为 FAILED orderId={o['id']} "
             f"userId={o['user']} errorCode={code} attempts={o['attempts']} cost={ms_of(total)}ms "
             f"traceId={tid}: feign.FeignException$InternalServerError: [500] during [POST] to "
             f"[http://payment-service/internal/v1/payments] [PaymentClient#pay(PayRequest)]: "
             f"[{{\"code\":\"PAY_DB_UNAVAILABLE\",\"message\":\"数据库连接获取超时\"}}]", thr)
        inv_release(t + 0.03, o, "ORDER_FAILED")
    else:
        o["status"] = "TIMEOUT"
        o["code"] = code
        olog(pod, t, "ERROR",
             f"c.s.order.service.OrderService - 下单支付超时，订单置为 TIMEOUT orderId={o['id']} "
             f"userId={o['user']} attempts={o['attempts']} cost={ms_of(total)}ms traceId={tid}"
             f"{TIMEOUT_STACK}", thr)
        inv_release(t + 0.03, o, "ORDER_TIMEOUT")

    # the gateway's view of POST /api/v1/orders
    if total + 0.002 > GW_READ_TIMEOUT:
        tg = o["t"] + GW_READ_TIMEOUT + r.uniform(0.0005, 0.003)
        conn = r.randint(8_800_000, 8_999_999)
        client = client_ip(r)
        GW.add(tg, "ERROR",
               f"*{conn} upstream timed out (110: Connection timed out) while reading response header from "
               f"upstream, client: {client}, server: api.shop.example.com, request: \"POST /api/v1/orders "
               f"HTTP/1.1\", upstream: \"http://{pod[1]}:8080/api/v1/orders\", host: \"api.shop.example.com\"")
        gw_access(tg + 0.0004, "POST /api/v1/orders", 504, 160, tg - o["t"], pod, tid, urt=GW_READ_TIMEOUT + 0.001,
                  client=client)
        shown = tg
    else:
        status = 500 if outcome == "error" else 200
        size = r.randint(118, 160) if status == 500 else r.randint(290, 420)
        gw_access(t + 0.002, "POST /api/v1/orders", status, size, total + 0.002, pod, tid)
        shown = t + 0.002

    # users try again after a failure
    if o["status"] in ("FAILED", "TIMEOUT"):
        p = 0.25 if outcome == "declined" else 0.45
        if r.random() < p and (o["retry_of"] is None or r.random() < 0.5):
            push(shown + r.uniform(20, 120), "order", (o["user"], o))


# ---------------------------------------------------------------- gateway

def client_ip(r):
    return f"100.64.{r.randint(0, 31)}.{r.randint(2, 254)}"


def gw_access(t, req, status, size, rt, pod_or_up, tid, urt=None, client=None):
    r = R_GW
    if isinstance(pod_or_up, tuple):
        upstream = f"order-service/{pod_or_up[1]}:8080"
    else:
        upstream = pod_or_up
    level = "ERROR" if status >= 500 else "INFO"
    urt_s = "-" if upstream == "-" else f"{(urt if urt is not None else max(rt - r.uniform(0.0005, 0.002), 0.001)):.3f}"
    GW.add(t, level, f"{client or client_ip(r)} \"{req} HTTP/1.1\" {status} {size} rt={rt:.3f} urt={urt_s} "
                     f"upstream={upstream} trace_id={tid}")


UPSTREAMS = {
    "catalog": ["catalog-service/10.12.5.11:8080", "catalog-service/10.12.5.12:8080"],
    "cart": ["cart-service/10.12.7.21:8080"],
    "inventory": ["inventory-service/10.12.3.31:8080"],
}


def gateway_background():
    r = R_GW
    finished = sorted((o["final"], o["id"]) for o in ORDERS if o["final"])
    finals = [f for f, _ in finished]
    t = START
    while t < END:
        t += r.expovariate(3.0 / 60.0)
        x = r.random()
        tid = trace_id()
        if x < 0.34:
            req = f"GET /api/v1/products?category={r.randint(1, 48)}&page={r.randint(1, 6)}"
            up = r.choice(UPSTREAMS["catalog"])
            if t > GW_RELOAD and r.random() < 0.3:
                client = client_ip(r)
                GW.add(t - 0.0002, "WARN",
                       f"*{r.randint(8_000_000, 8_999_999)} limiting requests, excess: {r.uniform(0.1, 40):.3f} by "
                       f"zone \"api_products\", client: {client}, server: api.shop.example.com, request: "
                       f"\"{req} HTTP/1.1\", host: \"api.shop.example.com\"")
                gw_access(t, req, 429, 162, 0.000, "-", tid, client=client)
                continue
            gw_access(t, req, 200, r.randint(8000, 31000), r.uniform(0.018, 0.14), up, tid)
        elif x < 0.58:
            req = f"GET /api/v1/products/{r.randint(100000, 104000)}"
            status = 404 if r.random() < 0.03 else 200
            gw_access(t, req, status, 152 if status == 404 else r.randint(2200, 9000),
                      r.uniform(0.008, 0.06), r.choice(UPSTREAMS["catalog"]), tid)
        elif x < 0.72:
            status = 401 if r.random() < 0.04 else 200
            gw_access(t, "GET /api/v1/cart", status, 98 if status == 401 else r.randint(400, 3000),
                      r.uniform(0.006, 0.04), UPSTREAMS["cart"][0], tid)
        elif x < 0.80:
            gw_access(t, "POST /api/v1/cart/items", 200, r.randint(60, 120), r.uniform(0.008, 0.05),
                      UPSTREAMS["cart"][0], tid)
        elif x < 0.93:
            k = bisect.bisect_left(finals, t)
            if k == 0:
                continue
            oid = finished[r.randrange(max(0, k - 30), k)][1]
            pod = ORDER_PODS[r.randrange(2)]
            gw_access(t, f"GET /api/v1/orders/{oid}", 200, r.randint(600, 1400), r.uniform(0.007, 0.035),
                      pod, tid)
        else:
            gw_access(t, f"GET /api/v1/inventory/{r.choice(SKUS)}", 200, r.randint(80, 110),
                      r.uniform(0.004, 0.02), UPSTREAMS["inventory"][0], tid)
    # a catalog-service pod restarting at 08:22: two 502s, nothing to do with orders
    for t, pid in ((hms(8, 22, 11.384), 101234), (hms(8, 22, 13.902), 100877)):
        req = f"GET /api/v1/products/{pid}"
        client = client_ip(r)
        GW.add(t, "ERROR",
               f"*{r.randint(8_000_000, 8_999_999)} connect() failed (111: Connection refused) while connecting to "
               f"upstream, client: {client}, server: api.shop.example.com, request: \"{req} HTTP/1.1\", "
               f"upstream: \"http://10.12.5.12:8080/api/v1/products/{pid}\", host: \"api.shop.example.com\"")
        gw_access(t + 0.0003, req, 502, 150, 0.002, "catalog-service/10.12.5.12:8080", trace_id(), client=client)
    # SLB health checks
    t = START + 7.3
    while t < END:
        GW.add(t, "INFO", f"100.100.{r.randint(0, 3)}.{r.randint(2, 250)} \"GET /healthz HTTP/1.1\" 200 2 "
                          f"rt=0.000 urt=- upstream=- trace_id=-")
        t += 60.0
    # certificate check, hourly
    for h in (8, 9, 10):
        GW.add(hms(h, 0, 2.118 + r.random()), "WARN",
               "cert-checker: certificate /etc/nginx/certs/shop.example.com.crt (CN=*.shop.example.com, "
               "issuer=GeoTrust CN RSA CA G1) expires at 2026-12-12T23:59:59Z, 13 days left "
               "(warn threshold 30 days)")
    # the 09:48 config change (rate limit of /api/v1/products)
    t = GW_RELOAD
    GW.add(t, "INFO", "signal 1 (SIGHUP) received from 41877, reconfiguring")
    GW.add(t + 0.001, "INFO", "reconfiguring")
    GW.add(t + 0.012, "INFO", "using the \"epoll\" event method")
    GW.add(t + 0.013, "INFO", "start worker processes")
    for w in range(4):
        GW.add(t + 0.014 + w * 0.001, "INFO", f"start worker process {52310 + w}")
    GW.add(t + 0.2, "INFO", "gracefully shutting down")
    GW.add(t + 2.7, "INFO", "exiting")


# ---------------------------------------------------------------- order-service periodic

def order_periodic():
    r = R_ORD
    # stats of the last 5 minutes, from the leader pod
    t = START + 300
    while t < END:
        win = [o for o in ORDERS if o["final"] and t - 300 <= o["final"] < t]
        lat = sorted(p["latency"] for p in PAYMENTS if t - 300 <= p["done"] < t)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0
        counts = {s: sum(1 for o in win if o["status"] == s) for s in ("PAID", "FAILED", "TIMEOUT")}
        level = "WARN" if counts["FAILED"] + counts["TIMEOUT"] > max(3, 0.1 * len(win)) else "INFO"
        olog(ORDER_PODS[0], t + 0.004, level,
             f"c.s.order.monitor.OrderStatsReporter - 近5分钟下单统计 created={len(win)} paid={counts['PAID']} "
             f"failed={counts['FAILED']} timeout={counts['TIMEOUT']} payP99={p99}ms", "scheduling-1")
        for pod in ORDER_PODS:
            active = r.randint(0, 2)
            olog(pod, t + 0.6 + (0.3 if pod is ORDER_PODS[1] else 0), "INFO",
                 f"c.s.order.monitor.DataSourceMonitor - HikariPool-1 stats total=20 active={active} "
                 f"idle={20 - active} waiting=0 (last 5m: maxActive={active + r.randint(1, 3)} maxWaiting=0 "
                 f"timeouts=0)", "scheduling-1")
        t += 300
    # Redis reconnect during the blip
    pod = ORDER_PODS[1]
    olog(pod, REDIS_BLIP[0] + 41.3, "INFO",
         "i.l.core.protocol.ConnectionWatchdog - Reconnecting, last destination was "
         "redis-order.prod.svc.cluster.local/10.12.6.8:6379", "lettuce-eventExecutorLoop-1-3")
    olog(pod, REDIS_BLIP[0] + 41.9, "INFO",
         "i.l.core.protocol.ReconnectionHandler - Reconnected to redis-order.prod.svc.cluster.local/10.12.6.8:6379",
         "lettuce-nioEventLoop-4-2")
    # two ordinary ERRORs: a double submit caught by the unique key
    for t in (hms(8, 13, 44.271), hms(9, 41, 7.902)):
        user = r.choice(USERS)
        oid = order_id(t)
        olog(ORDER_PODS[r.randrange(2)], t, "ERROR",
             f"c.s.order.web.GlobalExceptionHandler - 下单失败 userId={user} traceId={trace_id()}: "
             f"org.springframework.dao.DuplicateKeyException: PreparedStatementCallback; Duplicate entry "
             f"'{user}-{oid}' for key 'orders.uk_user_request'")
    # invoice platform hiccup (WARN, retried)
    for t in (hms(7, 52, 18.4), hms(8, 57, 40.2), hms(9, 33, 12.8)):
        olog(ORDER_PODS[r.randrange(2)], t, "WARN",
             f"c.s.order.service.InvoiceService - 电子发票平台返回 503，已加入重试队列 orderId={order_id(t)} "
             f"retryIn=300s")


# ---------------------------------------------------------------- payment-service periodic

def payment_periodic():
    r = R_PAY
    for pod in PAY_PODS:
        t = START + 31.0 + (7.0 if pod.name.endswith("h3j6v") or pod.name.endswith("p9r4t") else 0)
        while t < END:
            if pod.ready <= t < pod.gone:
                active, waiting = pod.stats(t)
                max_active, max_waiting, timeouts = pod.window(max(t - 120.0, pod.ready), t)
                level = "WARN" if waiting or max_waiting or timeouts else "INFO"
                pod.log(t, level,
                        f"c.s.pay.monitor.DataSourceMonitor - HikariPool-1 stats total={PAY_POOL} active={active} "
                        f"idle={PAY_POOL - active} waiting={waiting} (last 2m: maxActive={max_active} "
                        f"maxWaiting={max_waiting} timeouts={timeouts})", "scheduling-1")
            t += 120.0
    # one channel signature failure, unrelated
    pod = PAY_PODS[1]
    pod.log(hms(8, 57, 3.551), "ERROR",
            f"c.s.pay.web.NotifyController - 渠道回调验签失败 channel=wechat paymentId=P{r.randint(10 ** 19, 10 ** 20 - 1)}: "
            "java.security.SignatureException: Signature length not correct: got 255 but was expecting 256")


def payment_rollout():
    """payment-service v2.3.0 -> v2.3.1, two pods, one at a time."""
    old_a, old_b, new_a, new_b = PAY_PODS
    for new, ready in ((new_a, new_a.ready), (new_b, new_b.ready)):
        s = ready - 21.2
        lines = [
            (0.0, "INFO", "c.s.pay.PaymentServiceApplication - Starting PaymentServiceApplication v2.3.1 using "
                          "Java 17.0.9 with PID 1 (/app/payment-service.jar started by app in /app)"),
            (0.02, "INFO", "c.s.pay.PaymentServiceApplication - The following 1 profile is active: \"prod\""),
            (0.05, "INFO", "c.s.pay.config.BuildInfoLogger - build version=v2.3.1 commit=8e41c2a "
                           "buildTime=2026-11-29T09:41:17Z change=PAY-1423"),
            (6.8, "INFO", "o.s.b.w.embedded.tomcat.TomcatWebServer - Tomcat initialized with port(s): 8080 (http)"),
            (11.2, "INFO", "com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Starting..."),
            (11.6, "INFO", "com.zaxxer.hikari.pool.HikariPool - HikariPool-1 - Added connection "
                           f"com.mysql.cj.jdbc.ConnectionImpl@{R_ID.getrandbits(32):08x}"),
            (11.7, "INFO", "com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Start completed."),
            (15.3, "INFO", "c.s.pay.risk.DuplicatePayGuard - 重复支付校验已开启 lookbackDays=90 "
                           "source=payment_record query=PaymentRecordMapper.selectRecentByUserId"),
            (20.4, "INFO", "o.s.b.w.embedded.tomcat.TomcatWebServer - Tomcat started on port(s): 8080 (http) "
                           "with context path ''"),
            (21.2, "INFO", "c.s.pay.PaymentServiceApplication - Started PaymentServiceApplication in 21.174 "
                           "seconds (process running for 23.06)"),
        ]
        for dt, level, text in lines:
            new.log(s + dt, level, text, "main")
    for old in (old_a, old_b):
        g = old.gone
        old.log(g + 0.1, "INFO", "o.s.b.w.embedded.tomcat.GracefulShutdown - Commencing graceful shutdown. "
                                 "Waiting for active requests to complete", "SpringApplicationShutdownHook")
        old.log(g + 0.7, "INFO", "o.s.b.w.embedded.tomcat.GracefulShutdown - Graceful shutdown complete",
                "tomcat-shutdown")
        old.log(g + 0.8, "INFO", "com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Shutdown initiated...",
                "SpringApplicationShutdownHook")
        old.log(g + 0.83, "INFO", "com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Shutdown completed.",
                "SpringApplicationShutdownHook")
        for j in range(2):
            PDB.add(g + 0.9 + j * 0.01, "INFO",
                    f"[MY-010914] [Server] Aborted connection {R_DB.randint(1_880_000, 1_883_000)} to db: 'payment' "
                    f"user: 'pay_app' host: '{old.ip}' (Got an error reading communication packets).")


# ---------------------------------------------------------------- payment-db periodic

def payment_db_periodic():
    r = R_DB
    t = START + 30.0
    last_cleaner = 0.0
    while t < END:
        n = DB.running(t)
        scans = [(s, e) for s, e in DB.scans if s <= t < e]
        rows_read = 21000 + r.randint(-4000, 6000) + sum(int(DB.rows_at(t) / (e - s)) for s, e in scans)
        data_mb = min(1150.0, 0.4 + r.uniform(0, 0.4) + sum(6200.0 / (e - s) for s, e in scans))
        cpu = min(98, 15 + r.randint(-3, 4) + int(4.8 * n))
        iowait = min(61, 1 + r.randint(0, 1) + int(3.6 * n))
        pods = sum(1 for p in PAY_PODS if p.ready <= t < p.gone)
        connected = pods * PAY_POOL + 7
        running = n + r.randint(1, 3)
        qps = 380 + r.randint(-40, 60) + int((t - START) / 60)
        level = "WARN" if running > 16 or cpu > 80 else "INFO"
        PDB.add(t, level,
                f"mysqld status: Threads_connected={connected} Threads_running={running} QPS={qps} "
                f"Innodb_rows_read/s={rows_read} Innodb_buffer_pool_reads/s={3 + r.randint(0, 4) + 2150 * n} "
                f"Innodb_data_read={data_mb:.1f}MB/s cpu={cpu}% iowait={iowait}%")
        if n >= 8 and t - last_cleaner > 110:
            last_cleaner = t
            took = 1000 + int(230 * n) + r.randint(0, 400)
            PDB.add(t + r.uniform(5, 25), "WARN",
                    f"[MY-011953] [InnoDB] Page cleaner took {took}ms to flush {r.randint(120, 480)} and evict 0 pages")
        t += 60.0
    # refund sweeps: ordinary slow queries
    for t in (hms(7, 47, 11.2), hms(8, 47, 9.8), hms(9, 47, 12.6)):
        q = r.uniform(1.02, 1.31)
        h, m, s, _ = _parts(t - 1800)
        slow_log(t + q, q, 0.000091, 37, r.randint(405000, 418000), "10.12.4.40", r.randint(1_870_000, 1_879_999),
                 "SELECT id, payment_id, amount FROM refund_record WHERE status = 'PENDING' AND created_at < "
                 f"'2026-11-29 {h:02d}:{m:02d}:{s:02d}' LIMIT 500", user="refund_job")


# ---------------------------------------------------------------- inventory-service

def inv_log(t, level, text, thr=None, pod=None):
    pod = pod or (INV_OLD if t < INV_DEPLOY + 20.5 else INV_NEW)
    INV.add(t, level, f"{pod} [{thr or thread(R_INV)}] {text}")


def inv_release(t, o, reason):
    inv_log(t, "INFO", f"c.s.inv.service.StockService - 释放预占库存 orderId={o['id']} sku={R_INV.choice(SKUS)} "
                       f"qty={R_INV.randint(1, 2)} reason={reason}")


def inventory():
    r = R_INV
    t = START + 12.0
    offset = 88_120_455
    while t < END:
        lag_on = KAFKA_LAG[0] <= t < KAFKA_LAG[1]
        records = r.randint(24, 52)
        offset += records
        cost = r.randint(6800, 9400) if lag_on else r.randint(120, 320)
        inv_log(t, "INFO",
                f"c.s.inv.mq.OrderEventConsumer - 消费 order-events 批次完成 records={records} "
                f"partitions=[0-5] cost={cost}ms lastOffset={offset}", "kafka-consumer-inventory-sync-0")
        t += r.uniform(55, 65)
    # consumer lag between 09:04 and 09:14, then the 09:20 deploy
    lag = [2100, 5600, 8900, 12840, 15210, 13770, 10350, 7020, 3880, 1260]
    for i, value in enumerate(lag):
        t = KAFKA_LAG[0] + i * 60 + 3.2
        level = "WARN" if value > 5000 else "INFO"
        inv_log(t, level, f"c.s.inv.mq.LagMonitor - 消费积压 group=inventory-sync topic=order-events lag={value} "
                          f"threshold=5000", "lag-monitor-1")
    inv_log(KAFKA_LAG[0] + 150.4, "WARN",
            "c.s.inv.job.StockSyncJob - 全量库存同步耗时过长 cost=142311ms skus=1204，与消费者争抢行锁",
            "scheduling-1")
    s = INV_DEPLOY - 1.5
    for dt, text in [
        (0.0, "c.s.inv.InventoryServiceApplication - Starting InventoryServiceApplication v1.8.4 using Java 17.0.9 "
              "with PID 1 (/app/inventory-service.jar started by app in /app)"),
        (9.6, "com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Start completed."),
        (14.2, "o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: max.poll.records = 500, "
               "group.id = inventory-sync"),
        (19.8, "c.s.inv.InventoryServiceApplication - Started InventoryServiceApplication in 19.634 seconds "
               "(process running for 21.2)"),
    ]:
        inv_log(s + dt, "INFO", text, "main", pod=INV_NEW)
    inv_log(INV_DEPLOY + 20.6, "INFO", "o.s.b.w.embedded.tomcat.GracefulShutdown - Commencing graceful shutdown. "
                                       "Waiting for active requests to complete", "SpringApplicationShutdownHook",
            pod=INV_OLD)
    inv_log(INV_DEPLOY + 22.9, "INFO", "o.a.k.c.c.internals.ConsumerCoordinator - [Consumer "
                                       "clientId=inventory-sync-0, groupId=inventory-sync] Revoke previously "
                                       "assigned partitions order-events-0, order-events-1, order-events-2",
            "kafka-consumer-inventory-sync-0", pod=INV_NEW)
    inv_log(INV_DEPLOY + 25.4, "INFO", "o.a.k.c.c.internals.ConsumerCoordinator - [Consumer "
                                       "clientId=inventory-sync-0, groupId=inventory-sync] Adding newly assigned "
                                       "partitions: order-events-0, order-events-1, order-events-2, order-events-3, "
                                       "order-events-4, order-events-5", "kafka-consumer-inventory-sync-0",
            pod=INV_NEW)
    # full stock sync every 5 minutes, low-stock warnings now and then
    t = START + 240.0
    while t < END:
        if not (KAFKA_LAG[0] <= t < KAFKA_LAG[1]):
            inv_log(t, "INFO", f"c.s.inv.job.StockSyncJob - 全量库存同步完成 skus=1204 changed={r.randint(3, 40)} "
                               f"cost={r.randint(620, 1100)}ms", "scheduling-1")
        t += 300.0
    t = START
    while True:
        t += r.expovariate(1 / 900.0)
        if t >= END:
            break
        inv_log(t, "WARN", f"c.s.inv.service.StockService - 库存低于安全水位 sku={r.choice(SKUS)} "
                           f"available={r.randint(0, 9)} threshold=10")
    inv_log(hms(9, 42, 31.07), "ERROR",
            f"c.s.inv.service.StockService - 释放库存失败，已加入重试队列 orderId={order_id(hms(9, 41, 58))}: "
            "org.springframework.dao.CannotAcquireLockException: PreparedStatementCallback; SQL [UPDATE stock SET "
            "reserved = reserved - ? WHERE sku = ?]; Deadlock found when trying to get lock; try restarting "
            "transaction")


# ---------------------------------------------------------------- run

def arrivals():
    r = R_ORD
    t = START
    while True:
        frac = (t - START) / (END - START)
        rate = (5.0 + 3.0 * frac) / 60.0        # 5/min at 07:30 rising to 8/min (evening in Beijing)
        t += r.expovariate(rate)
        if t >= END:
            break
        push(t, "order", None)


def simulate():
    arrivals()
    t = START + 45.0
    while t < END:
        push(t, "sync", None)
        t += 120.0
    for h in (8, 9, 10):
        push(hms(h, 5, 0.0), "reconcile", None)
    while EVENTS:
        t, _, kind, payload = heapq.heappop(EVENTS)
        if t >= END + 60:
            continue
        if kind == "order":
            if payload is None:
                new_order(t)
            else:
                user, prev = payload
                new_order(t, user=user, retry_of=prev)
        elif kind == "attempt":
            o, k = payload
            attempt(t, o, k)
        else:
            background_pay_work(kind, t, payload)


# ---------------------------------------------------------------- orders.sql

SCHEMA = """\
-- 订单库（order-db）的只读副本，外加发布平台同步来的发布记录、服务目录与值班表。
-- 由 examples/demo/tools/generate.py 生成，请勿手工修改；时间均为 UTC。
PRAGMA foreign_keys = OFF;
BEGIN TRANSACTION;

CREATE TABLE orders (
  id          INTEGER PRIMARY KEY,          -- 订单号：yyyyMMddHHmmss + 4 位序号
  user_id     INTEGER NOT NULL,
  amount      REAL    NOT NULL,             -- 元
  status      TEXT    NOT NULL CHECK (status IN ('CREATED','PAID','FAILED','TIMEOUT','CANCELLED')),
  created_at  TEXT    NOT NULL,             -- UTC，'YYYY-MM-DD HH:MM:SS'
  updated_at  TEXT    NOT NULL
);
CREATE INDEX idx_orders_created_at ON orders (created_at);
CREATE INDEX idx_orders_user_created ON orders (user_id, created_at);

-- 订单服务每次调用支付服务（POST /internal/v1/payments）记一行；读超时重试会多一行。
CREATE TABLE payments (
  id          INTEGER PRIMARY KEY,
  order_id    INTEGER NOT NULL,
  status      TEXT    NOT NULL CHECK (status IN ('SUCCESS','FAILED','TIMEOUT')),
  error_code  TEXT,                         -- 渠道拒付码，或 READ_TIMEOUT / PAY_DB_UNAVAILABLE
  latency_ms  INTEGER NOT NULL,             -- 订单服务侧观察到的耗时
  created_at  TEXT    NOT NULL
);
CREATE INDEX idx_payments_order_id ON payments (order_id);
CREATE INDEX idx_payments_created_at ON payments (created_at);

CREATE TABLE deployments (
  id             INTEGER PRIMARY KEY,
  service        TEXT NOT NULL,
  version        TEXT NOT NULL,
  deployed_at    TEXT NOT NULL,             -- 发布开始时间，UTC
  operator       TEXT NOT NULL,
  ticket         TEXT NOT NULL,
  change_summary TEXT NOT NULL,
  db_change      TEXT NOT NULL,             -- 随发布执行的数据库变更（DDL），无则为“无”
  status         TEXT NOT NULL
);

CREATE TABLE services (
  name        TEXT PRIMARY KEY,
  team        TEXT NOT NULL,
  tier        TEXT NOT NULL,
  stack       TEXT NOT NULL,
  runbook     TEXT,                         -- docs/ 下的相对路径
  depends_on  TEXT NOT NULL
);

CREATE TABLE oncall (
  team        TEXT NOT NULL,
  day         TEXT NOT NULL,
  primary_oncall   TEXT NOT NULL,
  secondary_oncall TEXT NOT NULL,
  escalation  TEXT NOT NULL,
  PRIMARY KEY (team, day)
);
"""

DEPLOYMENTS = [
    ("catalog-service", "v3.7.2", "2026-11-20 07:12:00", "chenjing", "CAT-311", "商品详情页增加规格图缓存", "无"),
    ("order-service", "v4.11.3", "2026-11-21 08:30:00", "zhaomin", "ORD-874", "修复优惠券叠加时金额计算精度问题", "无"),
    ("gateway", "nginx-conf-20261122-01", "2026-11-22 06:40:00", "liuyang", "OPS-1290",
     "新增 /api/v1/inventory 路由", "无"),
    ("payment-service", "v2.3.0", "2026-11-24 07:05:00", "zhanglei", "PAY-1398",
     "支付渠道路由优化：微信支付失败时自动切换备用商户号", "无"),
    ("cart-service", "v1.5.0", "2026-11-25 08:20:00", "sunhao", "CART-77", "购物车合并逻辑重构", "无"),
    ("inventory-service", "v1.8.3", "2026-11-26 07:45:00", "wangfang", "INV-203", "库存全量同步任务改为每 5 分钟一次", "无"),
    ("order-service", "v4.12.0", "2026-11-27 07:30:00", "zhaomin", "ORD-889", "订单列表分页接口性能优化",
     "orders 表新增索引 idx_user_created (user_id, created_at)，DBA 审核人 zhoujie"),
    ("catalog-service", "v3.7.3", "2026-11-28 09:10:00", "chenjing", "CAT-318", "修复商品搜索分页越界", "无"),
    ("inventory-service", "v1.8.4", "2026-11-29 09:20:00", "wangfang", "INV-207",
     "order-events 消费者 max.poll.records 200 -> 500，缓解消费积压", "无"),
    ("gateway", "nginx-conf-20261129-02", "2026-11-29 09:48:00", "liuyang", "OPS-1307",
     "/api/v1/products 限流 200r/s -> 150r/s（应对爬虫流量）", "无"),
    ("payment-service", "v2.3.1", "2026-11-29 10:02:00", "zhanglei", "PAY-1423",
     "风控：支付前增加重复支付校验，按 user_id 查询 payment_record 近 90 天历史支付记录"
     "（PaymentRecordMapper.selectRecentByUserId）", "无"),
]

SERVICES = [
    ("gateway", "sre", "P0", "nginx 1.24", "runbooks/gateway-5xx.md",
     "order-service, catalog-service, cart-service, inventory-service"),
    ("order-service", "trade", "P0", "Java 17 / Spring Boot 3.1", "runbooks/order-service.md",
     "order-db, redis-order, inventory-service, payment-service, kafka"),
    ("payment-service", "payments", "P0", "Java 17 / Spring Boot 3.1", "runbooks/payment-service.md", "payment-db"),
    ("payment-db", "dba", "P0", "MySQL 8.0.35", "runbooks/payment-db-slow-query.md", ""),
    ("inventory-service", "trade", "P1", "Java 17 / Spring Boot 3.1", "runbooks/kafka-consumer-lag.md",
     "inventory-db, kafka"),
    ("catalog-service", "product", "P1", "Go 1.21", None, "catalog-db, redis-catalog"),
    ("cart-service", "product", "P1", "Go 1.21", None, "redis-cart"),
    ("redis-order", "sre", "P1", "Redis 7.0", "runbooks/redis-memory-latency.md", ""),
    ("kafka", "sre", "P1", "Kafka 3.5", "runbooks/kafka-consumer-lag.md", ""),
]

ONCALL = [
    ("sre", "2026-11-29", "liuyang", "hemin", "SRE 负责人 gaofeng"),
    ("trade", "2026-11-29", "zhaomin", "wangfang", "交易研发负责人 lijun"),
    ("payments", "2026-11-29", "wuqiang", "zhanglei", "支付研发负责人 chenhui"),
    ("dba", "2026-11-29", "zhoujie", "qianli", "DBA 负责人 sunwei"),
    ("product", "2026-11-29", "chenjing", "sunhao", "商品研发负责人 linfeng"),
    ("sre", "2026-11-28", "hemin", "liuyang", "SRE 负责人 gaofeng"),
    ("payments", "2026-11-28", "zhanglei", "wuqiang", "支付研发负责人 chenhui"),
]


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def insert(out, table, columns, rows, batch=100):
    for i in range(0, len(rows), batch):
        out.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES")
        chunk = rows[i:i + batch]
        out.append(",\n".join("  (" + ", ".join(q(v) for v in row) + ")" for row in chunk) + ";")


def orders_sql():
    out = [SCHEMA]
    rows = []
    for o in sorted(ORDERS, key=lambda o: (o["t"], o["id"])):
        created = o["t"] + 0.02
        if o["final"] is None or o["final"] >= END:
            status, updated = "CREATED", created
        elif o.get("cancel") and o["cancel"] < END:
            status, updated = "CANCELLED", o["cancel"]
        else:
            status, updated = o["status"], o["final"]
        o["db_status"] = status
        rows.append((o["id"], o["user"], o["amount"], status, sqlts(created), sqlts(updated)))
    insert(out, "orders", ["id", "user_id", "amount", "status", "created_at", "updated_at"], rows)
    prow = []
    pid = 88_120_001
    for p in sorted(PAYMENTS, key=lambda p: (p["t"], p["order"]["id"])):
        if p["done"] >= END:
            continue
        prow.append((pid, p["order"]["id"], p["status"], p["code"], p["latency"], sqlts(p["t"])))
        pid += 1
    insert(out, "payments", ["id", "order_id", "status", "error_code", "latency_ms", "created_at"], prow)
    insert(out, "deployments", ["id", "service", "version", "deployed_at", "operator", "ticket", "change_summary",
                                "db_change", "status"],
           [(i + 1,) + d + ("SUCCESS",) for i, d in enumerate(DEPLOYMENTS)])
    insert(out, "services", ["name", "team", "tier", "stack", "runbook", "depends_on"], SERVICES)
    insert(out, "oncall", ["team", "day", "primary_oncall", "secondary_oncall", "escalation"], ONCALL)
    out.append("COMMIT;")
    return "\n".join(out) + "\n", len(rows), len(prow)


# ---------------------------------------------------------------- consistency check

def check(texts):
    """The story must agree across docs, logs and rows; fail loudly if not."""
    docs = {}
    for root, _, files in os.walk(os.path.join(DEMO, "docs")):
        for f in files:
            if f.endswith(".md"):
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    docs[os.path.relpath(os.path.join(root, f), DEMO)] = fh.read()
    alldocs = "\n".join(docs.values())
    problems = []
    must = {
        "payment-service": [HIKARI_PAY, "PaymentRecordMapper.selectRecentByUserId", "Starting PaymentServiceApplication v2.3.1",
                            "调用方已超时，放弃提交渠道", "slow sql cost="],
        "order-service": [READ_TIMED_OUT, "java.net.SocketTimeoutException: Read timed out",
                          "下单支付超时，订单置为 TIMEOUT", "PAY_DB_UNAVAILABLE",
                          "io.lettuce.core.RedisCommandTimeoutException: Command timed out after 1 second(s)"],
        "payment-db": ["Rows_examined: 187", "FROM payment_record WHERE user_id =", "Page cleaner took"],
        "gateway": ["upstream timed out (110: Connection timed out) while reading response header from upstream",
                    "\"POST /api/v1/orders HTTP/1.1\" 504", "\"POST /api/v1/orders HTTP/1.1\" 500",
                    "limiting requests, excess:", "cert-checker: certificate"],
        "inventory-service": ["消费积压 group=inventory-sync", "Starting InventoryServiceApplication v1.8.4"],
    }
    for topic, needles in must.items():
        for n in needles:
            if n not in texts[topic]:
                problems.append(f"logs/{topic}: missing {n!r}")
    doc_needles = [HIKARI_PAY, "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
                   "java.net.SocketTimeoutException: Read timed out", READ_TIMED_OUT,
                   "upstream timed out (110: Connection timed out) while reading response header from upstream",
                   "PaymentRecordMapper.selectRecentByUserId", "Rows_examined", "slow sql cost=",
                   "调用方已超时，放弃提交渠道", "io.lettuce.core.RedisCommandTimeoutException",
                   "limiting requests, excess", "cert-checker", "消费积压", "maximumPoolSize=8",
                   "connectionTimeout=5000", "readTimeout=10000", "proxy_read_timeout 15s", "v2.3.1", "v2.3.0",
                   "payment_record", "idx_created_at", "uk_order_id", "18,7"]
    for n in doc_needles:
        if n not in alldocs:
            problems.append(f"docs: missing {n!r}")
    # rows: every order the logs settle has that status in `orders`
    status = {o["id"]: o["db_status"] for o in ORDERS}
    expect = {"下单成功": ("PAID", "CANCELLED"), "订单置为 TIMEOUT": ("TIMEOUT",), "订单置为 FAILED": ("FAILED",)}
    for line in texts["order-service"].splitlines():
        message = json.loads(line)["message"]
        for needle, allowed in expect.items():
            m = re.search(needle + r".*? orderId=(\d+)", message)
            if m and status.get(int(m.group(1))) not in allowed:
                problems.append(f"orders: {m.group(1)} is {status.get(int(m.group(1)))}, logs say {needle}")
    rollout = [d for d in DEPLOYMENTS if d[0] == "payment-service" and d[1] == "v2.3.1"]
    if not rollout or rollout[0][2] != sqlts(DEPLOY):
        problems.append("deployments: payment-service v2.3.1 must start at DEPLOY")
    if any(p["status"] == "SUCCESS" and p["t"] >= hms(10, 5) for p in PAYMENTS):
        problems.append("payments: a payment succeeded after 10:05; the story says none does")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="also check docs/logs/rows agree")
    args = ap.parse_args()

    simulate()
    gateway_background()
    order_periodic()
    payment_periodic()
    payment_rollout()
    payment_db_periodic()
    inventory()

    os.makedirs(os.path.join(DEMO, "logs"), exist_ok=True)
    os.makedirs(os.path.join(DEMO, "data"), exist_ok=True)
    texts = {}
    for topic in (GW, ORD, PAY, PDB, INV):
        ext = "jsonl" if topic.jsonl else "log"
        text = topic.render()
        texts[topic.name] = text
        with open(os.path.join(DEMO, "logs", f"{topic.name}.{ext}"), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    sql, n_orders, n_payments = orders_sql()
    with open(os.path.join(DEMO, "data", "orders.sql"), "w", encoding="utf-8", newline="\n") as f:
        f.write(sql)

    print(f"orders={n_orders} payments={n_payments} "
          + " ".join(f"{k}={v.count(chr(10))}lines" for k, v in texts.items()))
    if args.check and not check(texts):
        sys.exit(1)


if __name__ == "__main__":
    main()
