"""A release makes an audit call synchronous with no timeout; Tomcat's threads all hang on it."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "thread-pool-exhausted"
DEPLOY = hms(9, 40)
AUDIT_SLOW = hms(9, 58)


def build():
    ws = Workspace(NAME, "2026-11-19", hms(8, 30), hms(10, 45), lang="en")
    gw, api, audit = ws.topic("gateway", "log"), ws.topic("order-api"), ws.topic("audit-service")
    apod, aupod = pod("order-api", 1), pod("audit-service")

    def busy(t):
        if t < AUDIT_SLOW:
            return 12
        return min(200, int(12 + (t - AUDIT_SLOW) / 3))

    def req(r, t):
        if busy(t) >= 200 and r.random() < 0.85:
            gw.add(t + 15, "ERROR", access(r, "POST", "/api/v2/orders", 504, 15.0, "order-api/10.13.1.5:8080"))
            return None
        rt = 0.1 if t < AUDIT_SLOW else r.uniform(2, 9)
        gw.add(t + rt, "INFO", access(r, "POST", "/api/v2/orders", 201, rt, "order-api/10.13.1.5:8080"))
        return java(apod, exec_thread(r), "c.s.order.OrderController", f"order created cost={int(rt * 1000)}ms")
    api.poisson(ws.start, ws.end, 2.5, req)
    api.every(ws.start, ws.end, 60, lambda r, t: (("WARN" if busy(t) > 180 else "INFO"),
              f"tomcat threads: maxThreads=200 currentThreadsBusy={busy(t)} acceptCount=100 queued={max(0, busy(t) - 195) * 4}"), jitter=0.0)
    api.poisson(AUDIT_SLOW + 300, ws.end, 1.0, lambda r, t: ("WARN", java(apod, "watchdog", "c.s.common.web.StuckThreadDetector",
                f"thread {exec_thread(r)} stuck for {r.randint(60, 600)}s at c.s.order.audit.AuditClient.send(AuditClient.java:88) "
                "<- java.net.SocketInputStream.socketRead0 (readTimeout=0)")))
    api.add(DEPLOY + 15, "INFO", java(apod, "main", "c.s.order.OrderApiApplication", "Started OrderApiApplication v3.8.2 in 14.1 seconds"))
    audit.poisson(ws.start, ws.end, 2.0, lambda r, t: (("WARN", f"{aupod} [flush] c.s.audit.store.Writer - batch flush slow cost={r.randint(8000, 40000)}ms pending={r.randint(2000, 9000)}")
                  if t >= AUDIT_SLOW else f"{aupod} [flush] c.s.audit.store.Writer - batch flush ok cost={r.randint(20, 90)}ms"))
    audit.add(AUDIT_SLOW - 30, "INFO", f"{aupod} [main] c.s.audit.store.Writer - compaction started on audit_2026_11 (weekly)")
    # Loud unrelated error: coupon lookups failing for expired coupons, all morning.
    api.poisson(ws.start, ws.end, 1.5, lambda r, t: ("ERROR", java(apod, exec_thread(r), "c.s.order.coupon.CouponService",
                f"coupon CP{r.randint(10000, 99999)} rejected: CouponExpiredException")))
    gw.burst(hms(9, 36), ws.end, 25, lambda r, t: access(r, "GET", "/api/v2/coupons", 429, 0.0, "-"), level="WARN")
    noise_gateway(ws, gw, [("GET", "/api/v2/orders/recent", "order-api/10.13.1.5:8080")], per_minute=1.0)

    ws.changes([
        {"service": "gateway", "kind": "config", "at": hms(9, 35), "operator": "ops-bot", "ticket": "OPS-3301",
         "summary": "rate limit /api/v2/coupons to 100 r/s (coupon campaign)"},
        {"service": "order-api", "kind": "deploy", "version": "v3.8.2", "at": DEPLOY, "operator": "liuyang", "ticket": "REL-903",
         "summary": "write the audit record synchronously in the request thread via AuditClient (compliance); AuditClient readTimeout=0"},
        {"service": "audit-service", "kind": "ops", "at": hms(9, 57), "operator": "ops-bot", "ticket": "",
         "summary": "weekly compaction of audit_2026_11 (scheduled)"},
    ], routine=["order-api", "audit-service"])
    ws.mark("order-api (WARN)", "tomcat threads: maxThreads=200 currentThreadsBusy=200 ...")
    ws.mark("order-api (WARN)", "thread http-nio-8080-exec-N stuck for ...s at c.s.order.audit.AuditClient.send(AuditClient.java:88) <- java.net.SocketInputStream.socketRead0 (readTimeout=0)")
    ws.mark("changes row", "order-api | deploy | v3.8.2 | 2026-11-19 09:40:00 | REL-903 | write the audit record synchronously ... AuditClient readTimeout=0")

    ws.doc("runbooks/thread-pools.md", """
# Request thread pool exhaustion

## All worker threads busy
Symptom: `currentThreadsBusy` equal to `maxThreads` for `{service}`, gateway 504s while the service is up, stuck-thread warnings.
Look at where the stuck threads wait (the `at ...` frame). A call without a read timeout to a slow dependency holds a thread forever; one slow dependency is enough to take all of them.
Fix: give the call a timeout (or make it asynchronous) and roll back the release that introduced the blocking call. Raising `maxThreads` does not help.

## CPU-bound saturation
Busy threads with CPU at 100% and no stuck-thread warnings: profile, scale out.
""")
    ws.doc("runbooks/audit-service.md", """
# audit-service

Stores audit records. Weekly compaction (Tuesdays/Thursdays 10:00 local) makes flushes slow for up to an hour; callers must write asynchronously, which is the documented contract.
""")
    ws.doc("runbooks/coupons.md", """
# Coupons

`CouponExpiredException` is a normal business rejection (the customer used an expired coupon); it is logged at ERROR for historical reasons and needs no action.
The gateway limits `/api/v2/coupons` during campaigns (429 expected).
""")
    ws.doc("process/oncall.md", _common.ONCALL_EN)
    ws.toml = incident_toml("Why is the order API timing out (504) since about 10:00?", "en", "2026-11-19T10:45:00Z", expect={
        "outcome": "DIAGNOSIS", # Mechanism phrases only: the REL-903 row itself says AuditClient/readTimeout=0, so quoting
        # it next to an unrelated error must not count as the root cause.
        "root_cause_any": ["thread pool", "threads busy", "currentThreadsBusy", "stuck", "worker threads", "request threads",
                           "Tomcat thread", "thread exhaustion", "threads blocked", "blocked threads"],
        "cause_any": ["REL-903", "v3.8.2", "readTimeout=0", "no timeout", "without a timeout", "synchronous"],
        "must_check": ["query_logs"]})
    ws.truth = """
# thread-pool-exhausted: a blocking audit call with no timeout

**Root cause:** order-api v3.8.2 (REL-903, 09:40) writes the audit record synchronously in the request thread with `readTimeout=0`. When audit-service's weekly compaction slowed its flushes at 09:58, every request thread ended up blocked in `AuditClient.send`; from about 10:30 all 200 Tomcat threads are busy and the gateway answers 504.

**Decisive evidence:** WARN lines `tomcat threads: maxThreads=200 currentThreadsBusy=200`; WARN `thread ... stuck ... at c.s.order.audit.AuditClient.send ... (readTimeout=0)`; REL-903 in `changes`; runbook "All worker threads busy" (`{service}` placeholder).

**Distractors:** `CouponExpiredException` (the most frequent ERROR, a business rejection); OPS-3301 at 09:35 and the 429s on `/api/v2/coupons`; the audit compaction row (a trigger, but by contract callers must not block on it: the release is what turned it into an outage; a conclusion naming only the compaction is incomplete); "CPU-bound saturation" section.
"""
    return ws
