"""A CoreDNS forward change points at an upstream that times out; vendor domains stop resolving."""

from simlib import Workspace, hms, incident_toml, java, access, pod, noise_gateway

NAME = "dns-failure"
PUSH = hms(14, 30)
VENDORS = ["api.sms-vendor.example.com", "push.notify-x.example.com"]


def build():
    ws = Workspace(NAME, "2026-11-20", hms(13), hms(16), lang="zh")
    gw, ntf, dns = ws.topic("gateway", "log"), ws.topic("notification-service"), ws.topic("coredns", "log")
    npod = pod("notification-service")

    def send(r, t):
        host = r.choice(VENDORS)
        kind = "短信" if host.startswith("api.sms") else "推送"
        if t >= PUSH + 40 and r.random() < 0.85:
            dns.add(t - 0.01, "ERROR", f"plugin/errors: 2 {host}. A: read udp 10.96.0.10:{r.randint(30000, 60000)}->10.0.0.53:53: i/o timeout")
            return ("ERROR", java(npod, f"notify-worker-{r.randint(1, 16)}", "c.s.notify.sender.VendorSender",
                    f"{kind}发送失败 bizId=N{r.randint(10**7, 10**8 - 1)}: java.net.UnknownHostException: {host}: Temporary failure in name resolution"))
        return java(npod, f"notify-worker-{r.randint(1, 16)}", "c.s.notify.sender.VendorSender",
                    f"{kind}发送成功 vendor={host} cost={r.randint(60, 240)}ms")

    ntf.poisson(ws.start, ws.end, 2.5, send)
    dns.every(ws.start, ws.end, 600, lambda r, t: f"[INFO] plugin/reload: Running configuration SHA512 = {'9f2c' if t < PUSH else '41ab'}...", jitter=0.0)
    dns.add(PUSH + 35, "INFO", "[INFO] Reloading complete; forward . 10.0.0.53 10.0.0.54")
    dns.burst(ws.start, ws.end, 8, lambda r, t: ("WARN", f"plugin/kubernetes: ns=batch pod=report-{r.randint(100, 999)} endpoints watch restarted"))
    noise_gateway(ws, gw, [("GET", "/api/v1/user/profile", "user-service/10.70.1.3:8080")], per_minute=2)
    gw.burst(hms(14, 22), ws.end, 20, lambda r, t: access(r, "POST", "/api/v1/coupons/claim", 429, 0.0, "-"), level="WARN")
    # Unrelated: the e-mail channel's own quota warning.
    ntf.burst(ws.start, ws.end, 9, lambda r, t: ("WARN", java(npod, "mail-worker-1", "c.s.notify.mail.MailSender",
              "邮件渠道接近日配额 used=92% quota=200000")))

    ws.changes([
        {"service": "gateway", "kind": "config", "at": hms(14, 20), "operator": "ops-bot", "ticket": "OPS-5120",
         "summary": "网关限流：/api/v1/coupons/claim 调整为 300r/s（领券活动）"},
        {"service": "coredns", "kind": "config", "at": PUSH, "operator": "chenjing", "ticket": "NET-318",
         "summary": "CoreDNS Corefile：forward . 由 /etc/resolv.conf 改为新 DNS 集群 10.0.0.53 10.0.0.54（DNS 迁移第一步）"},
        {"service": "notification-service", "kind": "deploy", "version": "v2.6.0", "at": hms(11, 10), "operator": "sunhao",
         "ticket": "NTF-207", "summary": "推送模板支持多语言"},
    ], routine=["notification-service", "gateway", "coredns"])
    ws.mark("coredns", "plugin/errors: 2 api.sms-vendor.example.com. A: read udp 10.96.0.10:...->10.0.0.53:53: i/o timeout")
    ws.mark("notification-service", "短信发送失败 ... java.net.UnknownHostException: api.sms-vendor.example.com: Temporary failure in name resolution")
    ws.mark("changes row", "coredns | config | 2026-11-20 14:30:00 | NET-318 | CoreDNS Corefile：forward . 由 /etc/resolv.conf 改为新 DNS 集群 10.0.0.53 10.0.0.54")

    ws.doc("runbooks/dns.md", """
# DNS 解析失败

## 外部域名解析失败
症状：应用日志 `java.net.UnknownHostException: <域名>: Temporary failure in name resolution`，CoreDNS 日志 `plugin/errors: 2 <域名>. A: read udp ...-><上游DNS>:53: i/o timeout`。
原因：CoreDNS 的上游（`forward`）不可达或超时。对照 `changes` 中 coredns 的配置变更时间。
处置：回滚 Corefile 的 `forward` 配置，`kubectl -n kube-system rollout restart deploy/coredns`。

## 域名被劫持或解析到错误 IP
症状：能解析，但连接到了错误地址（`Connection refused`、证书不匹配）。排查运营商 DNS，与 `UnknownHostException` 无关。

## 集群内服务名解析失败
`<service>.<namespace>.svc.cluster.local` 解析失败：检查 kubernetes 插件与 endpoints。
""")
    ws.doc("runbooks/notification-service.md", """
# 通知服务 notification-service

## 短信 / 推送发送失败
先看异常：`UnknownHostException` 见《DNS 解析失败》；`HTTP 401` 是供应商密钥过期；`HTTP 429` 是供应商限流。

## 邮件配额
`邮件渠道接近日配额` 只是提醒，超过 100% 才会拒发。
""")
    ws.doc("runbooks/gateway-429.md", """
# 网关 429

限流只作用于变更单里配置的路由；领券活动期间 `/api/v1/coupons/claim` 的 429 属于预期。
""")
    ws.toml = incident_toml("通知服务下午两点半以后短信和推送都发不出去了，什么原因？", "zh", "2026-11-20T16:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["DNS", "域名解析", "UnknownHostException", "CoreDNS", "name resolution"],
        "cause_any": ["NET-318", "Corefile", "forward", "10.0.0.53", "新 DNS 集群", "new DNS cluster"],
        "must_check": ["query_logs"]})
    ws.truth = """
# dns-failure：CoreDNS 上游切换到不可达的 DNS 集群

**根因：** 14:30 的 NET-318 把 CoreDNS 的 `forward` 改到新 DNS 集群 10.0.0.53/54，新集群对外部域名查询超时（`read udp ...->10.0.0.53:53: i/o timeout`），notification-service 解析 `api.sms-vendor.example.com`、`push.notify-x.example.com` 失败（`UnknownHostException ... Temporary failure in name resolution`），短信和推送发不出去。

**决定性证据：** coredns 14:30:35 `Reloading complete; forward . 10.0.0.53 10.0.0.54` 与其后的 `plugin/errors`；notification-service 的 `UnknownHostException`；`changes` 中 NET-318；Runbook《DNS 解析失败》“外部域名解析失败”（`<域名>`、`<上游DNS>` 是占位符）。

**干扰项：** 14:20 网关领券限流 OPS-5120 与 429（更早一点的无关变更）；“域名被劫持”一节；邮件配额提醒；coredns 的 endpoints watch 警告。
"""
    return ws
