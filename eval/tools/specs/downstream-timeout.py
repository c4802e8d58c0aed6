"""A logistics partner's maintenance slows its API; a logging-only deploy came two minutes before."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "downstream-timeout"
MAINT = hms(2, 0)
MAINT_END = hms(4, 0)


def build():
    ws = Workspace(NAME, "2026-11-22", hms(1), hms(3, 30), lang="en")
    gw, ship = ws.topic("gateway", "log"), ws.topic("shipping-service")
    spod = pod("shipping-service")

    def label(r, t):
        wid = f"W{r.randint(10**8, 10**9 - 1)}"
        if MAINT + 120 <= t < MAINT_END and r.random() < 0.75:
            gw.add(t + 3.1, "ERROR", access(r, "POST", "/api/v1/shipments/label", 502, 3.1, "shipping-service/10.15.1.2:8080"))
            return ("ERROR", java(spod, exec_thread(r), "c.s.ship.partner.FastLogiClient",
                    f"create waybill failed shipment={wid}: java.net.SocketTimeoutException: Read timed out after 3000ms calling https://api.fastlogi.example.com/v2/waybills"))
        cost = r.randint(900, 2900) if MAINT + 120 <= t < MAINT_END else r.randint(150, 400)
        gw.add(t + cost / 1000, "INFO", access(r, "POST", "/api/v1/shipments/label", 200, cost / 1000, "shipping-service/10.15.1.2:8080"))
        return java(spod, exec_thread(r), "c.s.ship.partner.FastLogiClient", f"waybill created shipment={wid} partner=fastlogi cost={cost}ms")
    ship.poisson(ws.start, ws.end, 2.5, label)
    ship.add(hms(1, 58, 40), "INFO", java(spod, "main", "c.s.ship.ShippingApplication", "Started ShippingApplication v4.0.7 in 9.9 seconds"))
    ship.poisson(ws.start, ws.end, 0.6, lambda r, t: ("WARN", java(spod, exec_thread(r), "c.s.ship.address.AddressValidator",
                 f"address normalization fallback: postcode {r.randint(100000, 999999)} not in local table")))
    ship.burst(ws.start, ws.end, 6, lambda r, t: ("ERROR", java(spod, exec_thread(r), "c.s.ship.partner.SwiftShipClient",
               "SwiftShip rate quote failed: HTTP 401 Unauthorized (sandbox key) env=staging-mirror")))
    noise_gateway(ws, gw, [("GET", "/api/v1/shipments/track", "shipping-service/10.15.1.2:8080")], per_minute=1.0)

    ws.changes([
        {"service": "shipping-service", "kind": "deploy", "version": "v4.0.7", "at": hms(1, 58), "operator": "sunhao", "ticket": "SHP-330",
         "summary": "upgrade logback 1.4.11 -> 1.4.14 (logging only)"},
        {"service": "shipping-service", "kind": "config", "at": hms(-30 * 3600), "operator": "wangfang", "ticket": "SHP-318",
         "summary": "FastLogi client read timeout 3000ms (unchanged default, documented)"},
    ], routine=["shipping-service"])
    ws.table("vendor_status", """CREATE TABLE vendor_status (vendor TEXT, api_host TEXT, status TEXT, started_at TEXT, ended_at TEXT, note TEXT)""", [
        ("fastlogi", "api.fastlogi.example.com", "maintenance", ws.clock.sql(MAINT), ws.clock.sql(MAINT_END),
         "database migration; elevated latency, some requests may time out"),
        ("swiftship", "api.swiftship.example.com", "operational", ws.clock.sql(hms(-48 * 3600)), "", ""),
    ])
    ws.mark("shipping-service", "create waybill failed ...: java.net.SocketTimeoutException: Read timed out after 3000ms calling https://api.fastlogi.example.com/v2/waybills")
    ws.mark("vendor_status row", "fastlogi | api.fastlogi.example.com | maintenance | 2026-11-22 02:00:00 | 2026-11-22 04:00:00 | database migration; elevated latency ...")

    ws.doc("runbooks/partner-apis.md", """
# Carrier partner APIs

## Timeouts calling a partner
Symptom: `Read timed out after <N>ms calling https://<partner-host>/...` from shipping-service, confined to one partner.
Check the partner's status (`vendor_status`, synced from the partners' status pages every 5 minutes): a maintenance window explains it. Switch label creation to the backup carrier with the `shipping.fallback-carrier` flag until the window ends.

## Authentication failures
`HTTP 401` from a partner: the API key was rotated. Staging mirrors use sandbox keys and fail by design.
""")
    ws.doc("runbooks/shipping-service.md", """
# shipping-service

## Address normalization fallback
`postcode ... not in local table`: the address is sent unnormalized; harmless.

## Releases
Roll back when a new exception appears right after a release. A logging-library upgrade changes no request path.
""")
    ws.doc("process/oncall.md", _common.ONCALL_EN)
    ws.toml = incident_toml("Why are shipping label requests failing since about 2am?", "en", "2026-11-22T03:30:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["fastlogi", "partner", "vendor", "carrier"],
        "cause_any": ["maintenance", "database migration", "维护", "迁移"],
        "must_check": ["query_logs", "query_mysql"]})
    ws.truth = """
# downstream-timeout: the carrier partner's maintenance window

**Root cause:** FastLogi (`api.fastlogi.example.com`) is in a scheduled maintenance window 02:00-04:00 (database migration, `vendor_status`); from 02:02 most waybill calls exceed shipping-service's 3000 ms read timeout and label creation answers 502.

**Decisive evidence:** shipping-service `Read timed out after 3000ms calling https://api.fastlogi.example.com/v2/waybills`; the `vendor_status` row; runbook "Timeouts calling a partner" (`<partner-host>` placeholder).

**Distractors:** shipping-service v4.0.7 at 01:58 (SHP-330, logging library only), two minutes before the onset; SwiftShip `HTTP 401` from the staging mirror (ERROR); address-normalization warnings.
"""
    return ws
