"""English: "It's broken again" names nothing to investigate."""

from simlib import Workspace, hms, incident_toml
from specs import _common

NAME = "ctx-broken-again"


def build():
    ws = Workspace(NAME, "2026-11-17", hms(13), hms(15), lang="en")
    _common.quiet_shop(ws, "en")
    ws.changes([
        {"service": "payment-service", "kind": "deploy", "version": "v2.5.1", "at": hms(14, 30), "operator": "wangfang", "ticket": "PAY-1650",
         "summary": "refund page copy changes"},
    ], routine=["order-service", "payment-service"])
    ws.doc("runbooks/order-service.md", _common.ORDER_RUNBOOK_EN)
    ws.doc("runbooks/redis-latency.md", _common.REDIS_EN)
    ws.doc("process/oncall.md", _common.ONCALL_EN)
    ws.toml = incident_toml("It's broken again. Why?", "en", "2026-11-17T15:00:00Z",
                            expect={"outcome": "FALLBACK", "fallback_code": "MISSING_REQUIRED_CONTEXT"})
    ws.truth = """
# ctx-broken-again: nothing to start from

The question names no service, no symptom and no time. The right outcome is FALLBACK with `MISSING_REQUIRED_CONTEXT`, asking for the service, the error or symptom, and the time. The scattered errors in the workspace and the 14:30 payment-service release must not be turned into a guess.
"""
    return ws
