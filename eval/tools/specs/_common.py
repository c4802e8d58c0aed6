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
