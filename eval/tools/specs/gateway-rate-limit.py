"""A gateway rate-limit change is the cause this time (per-instance vs cluster units); a user-service deploy is innocent."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "gateway-rate-limit"
CHANGE = hms(20, 0)


def build():
    ws = Workspace(NAME, "2026-11-28", hms(19), hms(21), lang="zh")
    gw, user = ws.topic("gateway", "log"), ws.topic("user-service")
    upod = pod("user-service")

    def login(r, t):
        path = r.choice(["/api/v1/user/login", "/api/v1/user/profile", "/api/v1/user/token/refresh"])
        if t >= CHANGE + 5 and r.random() < 0.7:
            gw.add(t, "WARN", f"limiting requests, excess: {r.uniform(5, 40):.3f} by zone \"api_user\", client: 100.64.{r.randint(0, 40)}.{r.randint(2, 250)}, "
                   f"request: \"POST {path} HTTP/1.1\"")
            return ("WARN", access(r, "POST", path, 429, 0.0, "-"))
        user.add(t + 0.05, "INFO", java(upod, exec_thread(r), "c.s.user.api.AuthController", f"{path.rsplit('/', 1)[1]} ok userId={r.randint(10**6, 2 * 10**6)}"))
        return access(r, "POST", path, 200, 0.06, "user-service/10.14.1.3:8080")
    gw.poisson(ws.start, ws.end, 5.0, login)
    gw.add(CHANGE + 3, "INFO", "nginx: signal process started; configuration reloaded (limit_req_zone api_user rate=50r/s)")
    noise_gateway(ws, gw, [("GET", "/api/v1/products/1", "catalog-service/10.14.2.2:8080")], per_minute=1.0)
    user.burst(ws.start, ws.end, 8, lambda r, t: ("ERROR", java(upod, exec_thread(r), "c.s.user.sms.SmsCodeSender",
               "短信验证码发送失败 vendor=sms-a code=isv.BUSINESS_LIMIT_CONTROL（同一手机号发送过于频繁）")))
    user.add(hms(19, 55, 20), "INFO", java(upod, "main", "c.s.user.UserApplication", "Started UserApplication v2.1.3 in 10.2 seconds"))
    user.burst(hms(19, 55, 30), ws.end, 6, lambda r, t: ("WARN", java(upod, exec_thread(r), "c.s.user.api.AuthController",
               "登录失败 reason=BAD_PASSWORD attempts=3，账号临时锁定 15 分钟")))

    ws.changes([
        {"service": "user-service", "kind": "deploy", "version": "v2.1.3", "at": hms(19, 55), "operator": "zhaomin", "ticket": "USR-620",
         "summary": "登录日志增加设备型号字段（仅日志）"},
        {"service": "gateway", "kind": "config", "at": CHANGE, "operator": "liuyang", "ticket": "OPS-8120",
         "summary": "限流改造：limit_req_zone api_user 由 500r/s 改为 50r/s（按新方案每实例计，共 10 个实例）"},
    ], routine=["user-service", "gateway"])
    ws.table("gateway_instances", "CREATE TABLE gateway_instances (name TEXT, zone TEXT, limit_req_mode TEXT)", [
        ("gw-0", "cn-east-1a", "shared (cluster-wide counter in redis-ratelimit)"),
        ("gw-1", "cn-east-1b", "shared (cluster-wide counter in redis-ratelimit)"),
    ])
    ws.mark("gateway", 'limiting requests, excess: ... by zone "api_user", client: ..., request: "POST /api/v1/user/login HTTP/1.1"')
    ws.mark("gateway", "nginx: signal process started; configuration reloaded (limit_req_zone api_user rate=50r/s)")
    ws.mark("changes row", "gateway | config | 2026-11-28 20:00:00 | OPS-8120 | 限流改造：limit_req_zone api_user 由 500r/s 改为 50r/s（按新方案每实例计，共 10 个实例）")
    ws.mark("gateway_instances", "limit_req_mode = shared (cluster-wide counter): 50r/s is for the whole cluster, not per instance")

    ws.doc("runbooks/gateway-rate-limit.md", """
# 网关限流

## 429 与 limiting requests
症状：网关日志 `limiting requests, excess: <N> by zone "<zone>"`，客户端收到 429（App 提示“请求太频繁”）。
判断：看 `<zone>` 对应哪条路由、限流值何时改过（`changes`）。我们的网关限流是**集群共享计数**（见 `gateway_instances.limit_req_mode`），`rate` 写的是整个集群的总量，不是每实例。
处置：回滚限流配置，`nginx -s reload` 即时生效。

## 单用户被限流
只有个别 `client` 反复被限流：爬虫或异常客户端，属于预期。
""")
    ws.doc("runbooks/user-login.md", """
# 用户登录失败

## 账号临时锁定
`登录失败 reason=BAD_PASSWORD attempts=3，账号临时锁定 15 分钟`：用户连续输错密码，属于风控预期，不会表现为“请求太频繁”。

## 短信验证码失败
`isv.BUSINESS_LIMIT_CONTROL`：短信供应商对同一手机号的频控，只影响个别用户。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("晚上 8 点以后很多用户登录失败，App 提示请求太频繁，为什么？", "zh", "2026-11-28T21:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["限流", "api_user", "limit_req", "rate limit", "429"],
        "cause_any": ["OPS-8120", "50r/s", "每实例", "集群共享", "共享计数", "per instance", "per-instance", "cluster-wide"],
        "must_check": ["query_logs"]})
    ws.truth = """
# gateway-rate-limit：限流值按“每实例”改小，实际是集群共享计数

**根因：** 20:00 的 OPS-8120 把 `limit_req_zone api_user` 从 500r/s 改为 50r/s，变更单按“每实例 × 10 个实例”估算，但网关限流是集群共享计数（`gateway_instances`），总量实际只剩 50r/s，登录、刷新 token 等用户接口大量 429。

**决定性证据：** gateway 20:00:03 `configuration reloaded (limit_req_zone api_user rate=50r/s)`；其后的 `limiting requests ... by zone "api_user"`（WARN，不是 ERROR）和 429；`changes` 中 OPS-8120；`gateway_instances.limit_req_mode`；Runbook《网关限流》（`<zone>` 占位符）。

**干扰项：** 19:55 user-service v2.1.3（仅日志）；`账号临时锁定`（Runbook 里看着像的一节）；短信验证码 `BUSINESS_LIMIT_CONTROL`（user-service 里唯一的 ERROR）。这一例里“限流变更”恰好就是原因：与其他事故里无关的限流变更相反，它的内容（`api_user`）与故障路由和错误（`by zone "api_user"`）一一对应。
"""
    return ws
