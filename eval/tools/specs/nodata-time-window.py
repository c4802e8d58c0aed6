"""The question is about 03:00; the logs start at 08:00. A change at 02:50 tempts a guess."""

from simlib import Workspace, hms, incident_toml
from specs import _common

NAME = "nodata-time-window"


def build():
    ws = Workspace(NAME, "2026-11-23", hms(8), hms(11), lang="en")
    _common.quiet_shop(ws, "en")
    ws.changes([
        {"service": "payment-service", "kind": "config", "at": hms(2, 50), "operator": "ops-bot", "ticket": "OPS-9120",
         "summary": "rotate channel API credentials (scheduled)"},
        {"service": "order-service", "kind": "deploy", "version": "v6.1.0", "at": hms(9, 10), "operator": "chenjing", "ticket": "ORD-3530",
         "summary": "order history: add pagination"},
    ], routine=["order-service", "payment-service"])
    ws.doc("runbooks/order-service.md", _common.ORDER_RUNBOOK_EN)
    ws.doc("runbooks/certificate-reminder.md", _common.CERT_REMINDER_EN)
    ws.doc("runbooks/redis-latency.md", _common.REDIS_EN)
    ws.toml = incident_toml("Why did checkout fail last night around 03:00?", "en", "2026-11-23T11:00:00Z",
                            expect={"outcome": "FALLBACK"}, extra_logs={"max_lookback_minutes": 1440})
    ws.truth = """
# nodata-time-window: the logs do not reach back to 03:00

The logs cover 08:00-11:00 only; nothing shows whether checkout failed at 03:00, let alone why. The `changes` table has a credential rotation at 02:50 (OPS-9120): close in time, but with no log from then there is no symptom to link it to. The right outcome is FALLBACK, naming the missing window.

**Distractors:** OPS-9120 at 02:50; ORD-3530 at 09:10; the Redis blip; DuplicateKeyException; the certificate reminder.
"""
    return ws
