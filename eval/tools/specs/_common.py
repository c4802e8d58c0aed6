"""Runbooks and noise shared by several incidents (distractors in most of them)."""

from simlib import hms

REDIS_ZH = """
# Redis 延迟与超时

## 症状
应用日志出现 `RedisCommandTimeoutException: Command timed out after <N> second(s)`，或缓存命中率下降。

## 判断
- 短时（1–2 分钟）超时后出现 `Reconnected to <host>:6379`：多为主从切换或网络抖动，应用会回源加载，通常自愈，不需处理。
- 持续超时且 `used_memory` 接近 `maxmemory`：检查大 key 与淘汰策略。

## 处置
持续超过 10 分钟再升级到缓存值班。
"""

REDIS_EN = """
# Redis latency and timeouts

## Symptom
Application logs show `RedisCommandTimeoutException: Command timed out after <N> second(s)`, or the cache hit rate drops.

## Assessment
- A short burst (1-2 minutes) followed by `Reconnected to <host>:6379` is a failover or a network blip; callers fall back to the loader and it heals by itself.
- Sustained timeouts with `used_memory` near `maxmemory`: look for big keys and the eviction policy.
"""

CERT_REMINDER_ZH = """
# 证书到期提醒

## 症状
网关日志每小时一条 `cert-checker: certificate for <域名> expires in <N> days`。

## 判断
只是提醒，证书仍然有效。剩余天数小于 7 天时在工单系统提 `CERT` 单续期；提醒本身不会导致任何请求失败。
"""

CERT_REMINDER_EN = """
# Certificate expiry reminders

## Symptom
The gateway logs `cert-checker: certificate for <domain> expires in <N> days` every hour.

## Assessment
A reminder only; the certificate is still valid. Under 7 days left, file a CERT ticket to renew. The reminder itself never fails a request.
"""

ONCALL_ZH = """
# 值班与升级

## 值班
每周一 10:00 交接。P1 故障 5 分钟内响应，15 分钟内拉群。

## 升级
影响下单、支付的故障一律按 P1 处理，先止血（回滚、降级、限流），后定位。
"""

ONCALL_EN = """
# On-call and escalation

## Rotation
Hand-over every Monday 10:00 UTC. P1 incidents: acknowledge within 5 minutes, open a bridge within 15.

## Escalation
Anything that blocks checkout or payment is P1: mitigate first (roll back, degrade, rate-limit), then find the cause.
"""


def hours(ws):
    """The whole hours inside the window (for hourly noise)."""
    first = int(ws.start // 3600) + 1
    return [hms(h) for h in range(first, int(ws.end // 3600) + 1)]


def quiet_shop(ws, lang="zh", errors=True):
    """A healthy shop (gateway, order-service, payment-service) with the usual noise.

    For the incidents the data cannot answer and the ones that lack context:
    something always looks a little wrong, nothing explains an outage."""
    from simlib import java, exec_thread, access, pod, noise_gateway, noise_redis_blip, noise_cert_reminder, noise_jvm_gc
    gw, order, pay = ws.topic("gateway", "log"), ws.topic("order-service"), ws.topic("payment-service")
    opod, ppod = pod("order-service"), pod("payment-service")
    zh = lang == "zh"

    def place(r, t):
        oid = f"{ws.date.replace('-', '')}{r.randint(10**9, 10**10 - 1)}"
        pay.add(t - 0.1, "INFO", java(ppod, exec_thread(r), "c.s.pay.service.PaymentService",
                ("支付成功 orderId=" if zh else "payment ok orderId=") + f"{oid} cost={r.randint(120, 300)}ms"))
        gw.add(t + 0.02, "INFO", access(r, "POST", "/api/v1/orders", 200, 0.3, "order-service/10.17.1.2:8080"))
        return java(opod, exec_thread(r), "c.s.order.service.OrderService",
                    ("下单成功 orderId=" if zh else "order placed orderId=") + f"{oid} cost={r.randint(200, 380)}ms")
    order.poisson(ws.start, ws.end, 2.0, place)
    noise_gateway(ws, gw, [("GET", "/api/v1/products?page=1", "catalog-service/10.17.3.3:8080")], per_minute=1.5)
    noise_cert_reminder(ws, gw, "www.shop.example.com", 12)
    noise_redis_blip(ws, order, ws.start + 2400, opod)
    noise_jvm_gc(ws, pay, ppod)
    if errors:
        pay.burst(ws.start, ws.end, 6, lambda r, t: ("WARN", java(ppod, exec_thread(r), "c.s.pay.callback.CallbackHandler",
                  ("渠道回调验签失败，已丢弃 reason=SIGN_MISMATCH" if zh else "channel callback signature mismatch, dropped"))))
        order.burst(ws.start, ws.end, 5, lambda r, t: ("ERROR", java(opod, exec_thread(r), "c.s.order.service.OrderService",
                    "org.springframework.dao.DuplicateKeyException: Duplicate entry for key 'orders.uk_user_request'")))
        gw.burst(ws.start + 3000, ws.start + 3060, 2, lambda r, t: ("ERROR",
                 'connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://10.17.3.3:8080/api/v1/products"'))
    return gw, order, pay


GC_RUNBOOK_ZH = """
# JVM 频繁 Full GC 与 OOM

## 症状
`Pause Full`、`java.lang.OutOfMemoryError: Java heap space`，Pod `OOMKilled`。

## 排查
看 {service} 的 GC 日志中 `heap after GC` 的走势：持续上升是泄漏；对照同一时间段的发布。
没有该服务当时的 GC 日志或堆转储时，无法判断原因，只能先扩容并开启 `-XX:+HeapDumpOnOutOfMemoryError`。
"""

GC_RUNBOOK_EN = """
# JVM Full GC and OOM

## Symptom
`Pause Full`, `java.lang.OutOfMemoryError: Java heap space`, pods `OOMKilled`.

## Investigation
Follow `heap after GC` in {service}'s GC log: a steady climb is a leak; match it with a release at that time.
Without that service's GC log or a heap dump from the time, the cause cannot be told; scale out and enable `-XX:+HeapDumpOnOutOfMemoryError` first.
"""

ORDER_RUNBOOK_ZH = """
# 订单服务 order-service

## 下单失败
先看 order-service 的 ERROR：调用支付服务超时见《支付服务》；`DuplicateKeyException ... uk_user_request` 是用户重复提交，正常拦截。

## 商品接口 502
`connect() failed (111: Connection refused)` 指向 catalog-service：Pod 重启期间的短暂 502，自愈。
"""

ORDER_RUNBOOK_EN = """
# order-service

## Orders failing
Start from order-service's ERROR lines. `DuplicateKeyException ... uk_user_request` is a duplicate submit, rejected on purpose.

## 502 on product endpoints
`connect() failed (111: Connection refused)` to catalog-service: a pod restarting; heals by itself.
"""
