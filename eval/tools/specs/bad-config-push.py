"""A config-center push sets a channel timeout to 50 ms; the config_changes table holds the diff."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "bad-config-push"
PUSH = hms(11, 20, 12)


def build():
    ws = Workspace(NAME, "2026-11-12", hms(10), hms(12, 30), lang="zh")
    gw, pay, cfg = ws.topic("gateway", "log"), ws.topic("payment-service"), ws.topic("config-agent", "log")
    ppod = [pod("payment-service", i) for i in range(2)]

    def pay_one(r, t):
        p, oid = r.choice(ppod), f"20261112{r.randint(10**9, 10**10 - 1)}"
        ch = r.choice(["alipay", "wechat"])
        if t >= PUSH + 3 and r.random() < 0.8:
            gw.add(t + 0.06, "ERROR", access(r, "POST", "/api/v1/pay", 500, 0.06, "payment-service/10.11.1.4:8080"))
            return ("ERROR", java(p, exec_thread(r), "c.s.pay.channel.ChannelClient",
                    f"调用支付渠道超时 channel={ch} orderId={oid} timeout=50ms java.net.SocketTimeoutException: Read timed out"))
        gw.add(t + 0.3, "INFO", access(r, "POST", "/api/v1/pay", 200, 0.3, "payment-service/10.11.1.4:8080"))
        return java(p, exec_thread(r), "c.s.pay.service.PaymentService", f"支付成功 orderId={oid} channel={ch} channelCost={r.randint(80, 900)}ms")

    pay.poisson(ws.start, ws.end, 2.5, pay_one)
    for p in ppod:
        cfg.add(PUSH + 0.5, "INFO", f"pod={p} dataId=payment-service.yaml group=PROD md5 changed, refreshing 1 key(s)")
        pay.add(PUSH + 0.8, "INFO", java(p, "config-refresh", "c.s.common.config.RefreshListener",
                "配置已刷新 keys=[payment.channel.read-timeout-ms]"))
    cfg.every(ws.start, ws.end, 600, lambda r, t: "heartbeat to config-center ok servers=3", jitter=0.0)
    pay.burst(ws.start, ws.end, 7, lambda r, t: ("WARN", java(ppod[0], exec_thread(r), "c.s.pay.callback.CallbackHandler",
              "渠道回调验签失败，已丢弃 channel=wechat reason=SIGN_MISMATCH")))
    pay.burst(ws.start, ws.end, 5, lambda r, t: ("ERROR", java(ppod[1], exec_thread(r), "c.s.pay.channel.ChannelClient",
              "渠道返回 SYSTEMERROR channel=alipay，已重试成功")))
    noise_gateway(ws, gw, [("GET", "/api/v1/coupons", "coupon-service/10.11.2.8:8080")], per_minute=2)

    ws.changes([
        {"service": "coupon-service", "kind": "deploy", "version": "v1.9.2", "at": hms(11, 15), "operator": "sunhao", "ticket": "CPN-140",
         "summary": "优惠券列表排序调整"},
        {"service": "payment-service", "kind": "deploy", "version": "v3.0.8", "at": hms(-3 * 3600 + 6 * 3600), "operator": "wangfang",
         "ticket": "PAY-1490", "summary": "支付宝渠道证书轮换"},
    ], routine=["payment-service", "coupon-service"])
    ws.table("config_changes", """CREATE TABLE config_changes (id INTEGER PRIMARY KEY, data_id TEXT, config_group TEXT, config_key TEXT,
  old_value TEXT, new_value TEXT, pushed_at TEXT, operator TEXT, note TEXT)""", [
        (1, "coupon-service.yaml", "PROD", "coupon.list.page-size", "20", "30", ws.clock.sql(hms(9, 2)), "sunhao", "列表页每页条数"),
        (2, "payment-service.yaml", "PROD", "payment.channel.read-timeout-ms", "5000", "50", ws.clock.sql(PUSH), "liuyang",
         "渠道读超时统一为 5s（批量修改）"),
        (3, "gateway.yaml", "PROD", "log.access.sample-rate", "1.0", "0.5", ws.clock.sql(hms(11, 25)), "ops-bot", "访问日志采样"),
    ])
    ws.mark("payment-service", "调用支付渠道超时 channel=alipay ... timeout=50ms java.net.SocketTimeoutException: Read timed out")
    ws.mark("payment-service", "配置已刷新 keys=[payment.channel.read-timeout-ms]")
    ws.mark("config_changes row", "payment-service.yaml | payment.channel.read-timeout-ms | 5000 | 50 | 2026-11-12 11:20:12 | 渠道读超时统一为 5s（批量修改）")

    ws.doc("runbooks/config-center.md", """
# 配置中心推送

## 配置推送后 {service} 报错
症状：`配置已刷新 keys=[...]` 之后 {service} 立即出现新的错误。
排查：在 `config_changes` 表里按 `data_id = '{service}.yaml'` 查最近的推送，对比 `old_value` 与 `new_value`，单位写错（毫秒/秒）是最常见的原因。
处置：在配置中心回滚到上一版本，几秒内生效，无需重启。

## 配置未生效
`md5 changed` 之后没有 `配置已刷新`：客户端长轮询断开，重启 config-agent。
""")
    ws.doc("runbooks/payment-channel.md", """
# 支付渠道

## 渠道侧故障
症状：渠道返回 `SYSTEMERROR` 或 `Read timed out` 集中在**某一个**渠道，其他渠道正常。
处置：联系渠道方，必要时切换渠道。渠道读超时默认 5000ms。

## 回调验签失败
`SIGN_MISMATCH`：渠道回调使用了旧证书，丢弃即可，渠道会重发。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("11:20 以后支付宝和微信支付都大面积失败，什么原因？", "zh", "2026-11-12T12:30:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["read-timeout-ms", "超时", "timeout=50", "Read timed out"],
        # Not "50ms": the timeout lines say it; the cause is who set it.
        "cause_any": ["配置推送", "配置变更", "配置中心", "5000 改为 50", "config_changes", "批量修改", "payment-service.yaml"],
        "must_check": ["query_logs", "query_mysql"]})
    ws.truth = """
# bad-config-push：渠道读超时被推成 50 毫秒

**根因：** 11:20:12 在配置中心批量修改时把 `payment-service.yaml` 的 `payment.channel.read-timeout-ms` 从 5000 改成了 50（备注本意是“统一为 5s”），payment-service 热刷新后，所有渠道调用 50ms 就超时，支付宝和微信都失败。

**决定性证据：** payment-service `调用支付渠道超时 ... timeout=50ms ... Read timed out`（两个渠道都有）；`配置已刷新 keys=[payment.channel.read-timeout-ms]`；config-agent `md5 changed`；`config_changes` 第 2 行；Runbook《配置中心推送》（`{service}` 占位符）。

**干扰项：** 11:15 coupon-service 发布（`changes` 表里最近的一条，与支付无关）；11:25 网关访问日志采样变更（在故障之后）；Runbook《支付渠道》“渠道侧故障”一节（看着像，但故障不是集中在一个渠道）；零星 `SYSTEMERROR`、`SIGN_MISMATCH`。
"""
    return ws
