"""No service, no symptom, no time: the question lacks the context to start."""

from simlib import Workspace, hms, incident_toml
from specs import _common

NAME = "ctx-why-down-again"


def build():
    ws = Workspace(NAME, "2026-11-16", hms(9), hms(11), lang="zh")
    _common.quiet_shop(ws, "zh")
    ws.changes([
        {"service": "order-service", "version": "v5.9.9", "at": hms(10, 20), "operator": "chenjing", "ticket": "ORD-3450", "summary": "下单页埋点"},
    ], routine=["order-service", "payment-service"])
    ws.doc("runbooks/order-service.md", _common.ORDER_RUNBOOK_ZH)
    ws.doc("runbooks/redis-latency.md", _common.REDIS_ZH)
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("为什么又挂了？", "zh", "2026-11-16T11:00:00Z",
                            expect={"outcome": "FALLBACK", "fallback_code": "MISSING_REQUIRED_CONTEXT"})
    ws.truth = """
# ctx-why-down-again：缺少开始排查的上下文

问题没有说哪个服务、什么现象、什么时候。正确结果是 FALLBACK（`MISSING_REQUIRED_CONTEXT`），请用户补充服务名、报错或现象、时间范围。工作区里的零星错误（DuplicateKeyException、catalog-service 两条 502、Redis 抖动）和 10:20 的 order-service 发布都不能拿来猜。
"""
    return ws
