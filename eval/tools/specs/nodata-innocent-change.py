"""Callback failures start two minutes after a logging-only deploy; the failing hop has no logs."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, pod
from specs import _common

NAME = "nodata-innocent-change"
ONSET = hms(15, 0, 30)


def build():
    ws = Workspace(NAME, "2026-11-30", hms(13, 30), hms(16), lang="zh")
    gw, order, pay = _common.quiet_shop(ws, "zh")
    cb = ws.topic("callback-service")
    cpod = pod("callback-service")

    def callback(r, t):
        oid = f"20261130{r.randint(10**9, 10**10 - 1)}"
        if t >= ONSET and r.random() < 0.7:
            return ("ERROR", java(cpod, exec_thread(r), "c.s.callback.Forwarder",
                    f"支付回调转发失败 orderId={oid} target=order-service status=500 body=<empty>，进入重试队列"))
        return java(cpod, exec_thread(r), "c.s.callback.Forwarder", f"支付回调转发成功 orderId={oid} cost={r.randint(20, 60)}ms")
    cb.poisson(ws.start, ws.end, 2.0, callback)
    cb.add(hms(14, 58, 20), "INFO", java(cpod, "main", "c.s.callback.CallbackApplication", "Started CallbackApplication v1.4.2 in 6.3 seconds"))
    ws.changes([
        {"service": "callback-service", "kind": "deploy", "version": "v1.4.2", "at": hms(14, 58), "operator": "sunhao", "ticket": "CB-77",
         "summary": "日志脱敏：手机号、银行卡号打码（仅日志输出，不改转发逻辑）"},
        {"service": "catalog-service", "kind": "deploy", "version": "v3.3.0", "at": hms(14, 10), "operator": "zhaomin", "ticket": "CAT-402",
         "summary": "商品搜索同义词"},
    ], routine=["callback-service", "order-service"])
    ws.doc("runbooks/callback-service.md", """
# 支付回调 callback-service

## 转发失败 status=500
callback-service 把渠道回调转发给 order-service 的 `/internal/v1/orders/paid`。`status=500` 说明 order-service 处理失败，原因要看 order-service 处理该接口时的日志（内部接口的日志在 order-internal 主题，未接入本工作区）。回调会自动重试 24 小时，不会丢。

## 转发超时
`Read timed out`：order-service 响应慢，见《订单服务》。
""")
    ws.doc("runbooks/order-service.md", _common.ORDER_RUNBOOK_ZH)
    ws.doc("process/release.md", """
# 发布规范

只改日志输出（脱敏、格式）的发布不改变业务逻辑，走简化评审。发布后出现问题，先看新异常是否出自发布的代码路径。
""")
    ws.toml = incident_toml("下午 3 点以后支付回调大量转发失败，为什么？", "zh", "2026-11-30T16:00:00Z", expect={"outcome": "FALLBACK"})
    ws.truth = """
# nodata-innocent-change：只有一个时间上接近的无关变更

15:00:30 起 callback-service 转发给 order-service 的回调约七成返回 `status=500 body=<empty>`。失败的一跳是 order-service 的内部接口，它的日志（order-internal）不在工作区；order-service 主题里只有对外下单的日志，一切正常。14:58 的 callback-service v1.4.2（CB-77）只改日志脱敏，内容与“转发返回 500”无关，而且 500 是 order-service 返回的。数据说明不了原因，正确结果是 FALLBACK，指出缺 order-service 内部接口的日志。

**干扰项：** CB-77（两分钟前、同一服务、看着最像原因）；catalog-service 发布；Redis 抖动；DuplicateKeyException。
"""
    return ws
