"""The gateway shows the symptom (502 from report-service) but nothing in the workspace shows why."""

from simlib import Workspace, hms, incident_toml, access
from specs import _common

NAME = "nodata-symptom-only"
ONSET = hms(9, 12)


def build():
    ws = Workspace(NAME, "2026-11-25", hms(8), hms(10, 30), lang="zh")
    gw, order, pay = _common.quiet_shop(ws, "zh")
    gw.poisson(ONSET, ws.end, 2.0, lambda r, t: ("ERROR",
               f'connect() failed (111: Connection refused) while connecting to upstream, client: 100.64.{r.randint(0, 40)}.{r.randint(2, 250)}, '
               'request: "GET /api/v1/reports/daily HTTP/1.1", upstream: "http://10.17.6.9:8080/api/v1/reports/daily"'))
    gw.poisson(ws.start, ONSET, 0.5, lambda r, t: access(r, "GET", "/api/v1/reports/daily", 200, r.uniform(0.4, 1.5), "report-service/10.17.6.9:8080"))
    ws.changes([
        {"service": "order-service", "kind": "deploy", "version": "v6.0.3", "at": hms(9, 5), "operator": "chenjing", "ticket": "ORD-3519",
         "summary": "订单详情页展示物流单号"},
        {"service": "gateway", "kind": "config", "at": hms(8, 40), "operator": "ops-bot", "ticket": "OPS-9001",
         "summary": "/api/v1/search 限流 200r/s"},
    ], routine=["order-service", "payment-service", "gateway"])
    ws.doc("runbooks/gateway-502.md", """
# 网关 502

## Connection refused
`connect() failed (111: Connection refused) ... upstream: "http://<host>:<port>/..."`：上游没有进程在监听。原因要看上游服务自己的日志与发布、Pod 事件（崩溃、OOM、配置错误都可能），网关日志本身给不出原因。

## upstream timed out
上游超过 `proxy_read_timeout` 没有响应，见 504。
""")
    ws.doc("runbooks/order-service.md", _common.ORDER_RUNBOOK_ZH)
    ws.doc("runbooks/redis-latency.md", _common.REDIS_ZH)
    ws.toml = incident_toml("报表服务 9 点多开始打不开了，为什么？", "zh", "2026-11-25T10:30:00Z", expect={"outcome": "FALLBACK"})
    ws.truth = """
# nodata-symptom-only：只有症状，没有原因

09:12 起网关访问 report-service（10.17.6.9:8080）全部 `connect() failed (111: Connection refused)`。工作区里没有 report-service 的日志主题，`changes` 里没有它的变更，Runbook 只说明“要看上游自己的日志”。数据能说明“报表服务没有进程在监听”，说明不了为什么。正确结果是 FALLBACK：说明症状，列出缺的数据（report-service 的日志、Pod 事件）。

**干扰项：** 09:05 order-service 的发布 ORD-3519（时间接近，但与报表无关）；08:40 搜索限流；catalog-service 的两条 502；DuplicateKeyException。
"""
    return ws
