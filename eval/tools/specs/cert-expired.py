"""The client certificate of a bank link expired; a network change came after the onset."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway, noise_cert_reminder
from specs import _common

NAME = "cert-expired"
EXPIRY = hms(9, 30)


def build():
    ws = Workspace(NAME, "2026-11-15", hms(8), hms(11), lang="zh")
    gw, pay, ch = ws.topic("gateway", "log"), ws.topic("payment-service"), ws.topic("bank-channel", "log")
    ppod = pod("payment-service")

    def pay_one(r, t):
        oid = f"20261115{r.randint(10**9, 10**10 - 1)}"
        bank = r.random() < 0.55
        if bank and t >= EXPIRY:
            ch.add(t + 0.03, "ERROR", f"TLS handshake with api.unionbank.example.com:443 failed: javax.net.ssl.SSLHandshakeException: "
                   f"Received fatal alert: certificate_expired (client certificate CN=pay-client.shop.example.com)")
            gw.add(t + 0.05, "ERROR", access(r, "POST", "/api/v1/pay", 502, 0.05, "payment-service/10.50.1.4:8080"))
            return ("ERROR", java(ppod, exec_thread(r), "c.s.pay.channel.BankChannel",
                    f"银行卡支付失败 orderId={oid} channel=unionbank errorCode=CHANNEL_TLS_FAILED"))
        gw.add(t + 0.3, "INFO", access(r, "POST", "/api/v1/pay", 200, 0.3, "payment-service/10.50.1.4:8080"))
        if bank:
            ch.add(t + 0.2, "INFO", f"POST https://api.unionbank.example.com/v3/charge 200 cost={r.randint(120, 300)}ms")
        return java(ppod, exec_thread(r), "c.s.pay.service.PaymentService",
                    f"支付成功 orderId={oid} channel={'unionbank' if bank else r.choice(['alipay', 'wechat'])} cost={r.randint(150, 400)}ms")

    pay.poisson(ws.start, ws.end, 2.4, pay_one)
    noise_gateway(ws, gw, [("GET", "/api/v1/orders/1", "order-service/10.50.2.2:8080")], per_minute=2)
    noise_cert_reminder(ws, gw, "www.shop.example.com", 21)
    # The network change and the restart came AFTER the onset (mitigation attempts), not before.
    ch.add(hms(9, 42, 10), "WARN", "route table reloaded: 10.30.0.0/16 via bank-line-2 (OPS-4410)")
    pay.add(hms(9, 50, 5), "INFO", java(ppod, "main", "c.s.pay.PaymentApplication", "Started PaymentApplication v3.1.2 in 12.0 seconds"))
    ch.burst(ws.start, ws.end, 5, lambda r, t: ("WARN", f"POST https://api.unionbank.example.com/v3/charge retry after connect timed out (1/2) cost=2000ms"))

    ws.changes([
        {"service": "network", "kind": "config", "at": hms(9, 42), "operator": "ops-bot", "ticket": "OPS-4410",
         "summary": "银行专线 2 号线路由调整：10.30.0.0/16 走 bank-line-2（故障排查中）"},
        {"service": "payment-service", "kind": "restart", "version": "v3.1.2", "at": hms(9, 50), "operator": "wangfang", "ticket": "INC-2026-1115",
         "summary": "故障处理：重启 payment-service 全部 Pod"},
        {"service": "payment-service", "kind": "deploy", "version": "v3.1.2", "at": hms(-14), "operator": "wangfang", "ticket": "PAY-1533",
         "summary": "银行卡支付渠道增加 unionbank 退款查询接口"},
    ], routine=["payment-service", "gateway"])
    ws.table("certificates", """CREATE TABLE certificates (id INTEGER PRIMARY KEY, common_name TEXT, usage TEXT,
  used_by TEXT, not_before TEXT, not_after TEXT, renew_ticket TEXT)""", [
        (1, "www.shop.example.com", "server", "gateway", "2025-12-06 00:00:00", "2026-12-06 23:59:59", ""),
        (2, "pay-client.shop.example.com", "client (mTLS to api.unionbank.example.com)", "payment-service",
         "2025-11-15 09:30:00", "2026-11-15 09:30:00", "CERT-221 (open, unassigned)"),
        (3, "api.shop.example.com", "server", "gateway", "2026-03-01 00:00:00", "2027-03-01 23:59:59", ""),
    ])
    ws.mark("bank-channel", "TLS handshake with api.unionbank.example.com:443 failed: javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired")
    ws.mark("certificates row", "pay-client.shop.example.com | client (mTLS to api.unionbank.example.com) | payment-service | not_after 2026-11-15 09:30:00")

    ws.doc("runbooks/bank-channel.md", """
# 银行卡支付渠道

## 客户端证书过期
与银行的连接是双向 TLS，我方客户端证书见 `certificates` 表（`usage` 为 client）。
症状：`SSLHandshakeException: Received fatal alert: certificate_expired`，访问 `<域名>` 的握手全部失败，其他渠道正常。
处置：紧急续签客户端证书并下发到 payment-service，重启生效；重启、改路由都不能解决。

## 专线网络故障
症状：`connect timed out`，偶发重试成功。少量超时属于正常波动；持续超时时联系网络组切换 bank-line-2。

## 银行侧维护
银行会提前公告维护窗口，期间返回 `SYSTEM_MAINTENANCE`。
""")
    ws.doc("runbooks/certificate-reminder.md", _common.CERT_REMINDER_ZH)
    ws.doc("runbooks/gateway-502.md", """
# 网关 502

上游返回 502 或连接失败。看 `upstream=` 指向的服务日志；payment-service 在渠道失败时向网关返回 502。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("银行卡支付 9 点半之后全部失败，为什么？", "zh", "2026-11-15T11:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["证书", "certificate", "握手", "handshake", "pay-client.shop.example.com"],
        # Not "expired": the bank's alert certificate_expired says what fails; the expiry is the row.
        "cause_any": ["证书过期", "证书已过期", "证书到期", "not_after", "CERT-221", "has expired", "expired on", "expired at", "expiry"],
        "must_check": ["query_logs"]})
    ws.truth = """
# cert-expired：与银行的双向 TLS 客户端证书过期

**根因：** payment-service 访问 `api.unionbank.example.com` 的客户端证书 `pay-client.shop.example.com` 在 2026-11-15 09:30:00 UTC 到期（`certificates` 表，续签单 CERT-221 无人处理），银行拒绝握手：`Received fatal alert: certificate_expired`，银行卡支付全部失败，其他渠道正常。

**决定性证据：** bank-channel 09:30 起的 `SSLHandshakeException: Received fatal alert: certificate_expired`；`certificates` 第 2 行的 `not_after`；Runbook《银行卡支付渠道》“客户端证书过期”（写的是 `<域名>`，日志里是具体域名）。

**干扰项：** 09:42 的路由调整 OPS-4410 与 09:50 的重启都在 09:30 故障开始**之后**（故障处理动作），不是原因；每小时的 `cert-checker` 提醒是另一张证书（`www.shop.example.com`，还有 21 天）；零星 `connect timed out` 重试（Runbook“专线网络故障”一节看着像，但不是）。
"""
    return ws
