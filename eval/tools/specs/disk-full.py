"""Temporary DEBUG logging, switched on hours earlier, fills the data disk (slow build-up)."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "disk-full"
DEBUG_ON = hms(1, 40)
FULL = hms(9, 12)


def used_pct(t):
    if t < DEBUG_ON:
        return 38.0 + (t / 3600) * 0.1
    return min(100.0, 38.2 + (t - DEBUG_ON) / (FULL - DEBUG_ON) * 61.8)


def build():
    ws = Workspace(NAME, "2026-11-18", hms(7), hms(10), lang="en")
    gw, api, node = ws.topic("gateway", "log"), ws.topic("order-api"), ws.topic("node-agent", "log")
    apod = pod("order-api")

    def order(r, t):
        oid = f"O{r.randint(10**8, 10**9 - 1)}"
        if t >= FULL and r.random() < 0.9:
            gw.add(t + 0.02, "ERROR", access(r, "POST", "/api/v2/orders", 500, 0.02, "order-api/10.60.1.7:8080"))
            return ("ERROR", java(apod, exec_thread(r), "c.s.order.spool.OrderSpool",
                    f"failed to persist order {oid} to spool /data/order-api/spool: java.io.IOException: No space left on device"))
        gw.add(t + 0.12, "INFO", access(r, "POST", "/api/v2/orders", 201, 0.12, "order-api/10.60.1.7:8080"))
        return java(apod, exec_thread(r), "c.s.order.OrderController", f"order created id={oid} items={r.randint(1, 5)} cost={r.randint(40, 110)}ms")

    api.poisson(ws.start, ws.end, 2.0, order)
    # The DEBUG lines themselves (sampled: the real volume went to the local file, not to this topic).
    api.every(ws.start, ws.end, 45, lambda r, t: ("DEBUG", java(apod, exec_thread(r), "o.h.SQL",
              f"select o1_0.id,o1_0.status,o1_0.items from orders o1_0 where o1_0.id=? [binding O{r.randint(10**8, 10**9 - 1)}] (payload dump 48KB)")))
    node.every(ws.start, ws.end, 300, lambda r, t: (("WARN" if used_pct(t) > 85 else "INFO"),
               f"host=app-node-07 mount=/data used={used_pct(t):.1f}% avail={max(0.0, (100 - used_pct(t)) * 2.0):.1f}GiB inodes_used=3%"), jitter=0.0)
    node.every(ws.start, ws.end, 300, lambda r, t: f"host=app-node-03 mount=/data used={r.uniform(51, 52):.1f}% avail=96.8GiB inodes_used=2%", jitter=0.0)
    node.every(ws.start, ws.end, 600, lambda r, t: ("WARN", "host=app-node-03 disk sdb await=38ms (threshold 30ms) during backup"), jitter=0.0)
    node.add(FULL + 2, "ERROR", "host=app-node-07 mount=/data used=100.0% avail=0.0GiB: filesystem full")
    noise_gateway(ws, gw, [("GET", "/api/v2/orders/recent", "order-api/10.60.1.7:8080"),
                           ("GET", "/", "web-frontend/10.60.2.2:8080")], per_minute=2)

    ws.changes([
        {"service": "order-api", "kind": "config", "at": DEBUG_ON, "operator": "liuyang", "ticket": "CHG-5512",
         "summary": "temporary: logging.level.root=DEBUG and payload dumps on order-api to chase a serialization bug; revert after capture (no revert recorded)"},
        {"service": "web-frontend", "kind": "feature-flag", "at": hms(8, 55), "operator": "zhaomin", "ticket": "CHG-5519",
         "summary": "enable new-checkout-banner for 10% of users"},
        {"service": "order-api", "kind": "deploy", "version": "v7.4.1", "at": hms(-20), "operator": "sunhao", "ticket": "REL-880",
         "summary": "order-api: add idempotency key to order creation"},
    ], routine=["order-api", "web-frontend"])
    rows = []
    for i, t in enumerate(range(0, int(ws.end) + 1, 1800)):
        rows.append((ws.clock.sql(t), "app-node-07", "/data", round(used_pct(t), 1), 200))
        rows.append((ws.clock.sql(t), "app-node-03", "/data", 51.4, 200))
    ws.table("disk_usage", "CREATE TABLE disk_usage (sampled_at TEXT, host TEXT, mount TEXT, used_pct REAL, size_gib INTEGER)", rows)
    ws.mark("order-api", "failed to persist order ... to spool /data/order-api/spool: java.io.IOException: No space left on device")
    ws.mark("disk_usage", "app-node-07 /data: 38.2% at 01:30 rising steadily to 100.0% at 09:30 (DEBUG enabled 01:40)")
    ws.mark("changes row", "order-api | config | 2026-11-18 01:40:00 | CHG-5512 | temporary: logging.level.root=DEBUG ...")

    ws.doc("runbooks/disk-space.md", """
# Disk space on application hosts

## Filesystem full
Symptom: `No space left on device` from a service writing under `/data/<service>/` on `<host>`; the node agent reports `mount=/data used=100%`.
Cause: almost always log volume. Check `disk_usage` for when growth started and match it with a change to log levels or log shipping on that host (`changes`). A steady climb over hours points at a change made hours earlier, not at the latest one.
Mitigation: revert the log level, delete rotated logs under `/data/<service>/logs/`, then restart the service.

## Disk latency
Symptom: `await` above 30 ms during backups. Harmless unless it lasts beyond the backup window; it never fills a disk.

## Inodes
`inodes_used` above 90%: many small files (spool fragments). Not a space problem.
""")
    ws.doc("runbooks/order-api.md", """
# order-api

## Order creation fails with 500
order-api persists each order to a local spool (`/data/order-api/spool`) before acknowledging. Any spool write error fails the request with 500. See the disk-space runbook for `No space left on device`.

## Serialization errors
`JsonMappingException` on order payloads: roll back the last release.
""")
    ws.doc("runbooks/feature-flags.md", """
# Feature flags

Flags change what the web front end renders; they do not change backend behaviour. A flag can be turned off at once from the flag console.
""")
    ws.doc("process/oncall.md", _common.ONCALL_EN)
    ws.toml = incident_toml("Why has order creation been failing with 500 since about 09:10?", "en", "2026-11-18T10:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["disk full", "disk is full", "full disk", "No space left on device", "filesystem full"],
        "cause_any": ["CHG-5512", "DEBUG", "debug logging", "logging.level", "log volume"],
        "must_check": ["query_logs", "query_mysql"]})
    ws.truth = """
# disk-full: temporary DEBUG logging filled /data on app-node-07

**Root cause:** at 01:40 (7.5 hours before the onset) CHG-5512 switched order-api to `logging.level.root=DEBUG` with payload dumps and was never reverted. The log volume filled `/data` on app-node-07 steadily (38% to 100% between 01:40 and 09:12, `disk_usage`); from 09:12 every spool write fails with `java.io.IOException: No space left on device` and order creation answers 500.

**Decisive evidence:** order-api `failed to persist order ... No space left on device`; node-agent `host=app-node-07 mount=/data used=100.0%`; `disk_usage` rows climbing since 01:30; the CHG-5512 row; runbook "Filesystem full" (placeholders `<host>`, `<service>`).

**Distractors:** the 08:55 feature flag CHG-5519 (the most recent change, front end only); app-node-03's disk latency warnings during backup (the "Disk latency" section looks close); the v7.4.1 release the day before.
"""
    return ws
