"""A consumer release adds a synchronous call per message; lag and batch time are INFO/WARN lines."""

from simlib import Workspace, hms, incident_toml, java, pod
from specs import _common

NAME = "mq-consumer-lag"
DEPLOY = hms(19, 40)


def build():
    ws = Workspace(NAME, "2026-11-26", hms(18, 30), hms(21, 30), lang="zh")
    cons, kafka, risk = ws.topic("order-status-consumer"), ws.topic("kafka-broker", "log"), ws.topic("risk-service")
    cpod, rpod = pod("order-status-consumer"), pod("risk-service")
    state = {"lag": 800.0, "last": ws.start}

    def batch(r, t):
        dt, state["last"] = t - state["last"], t
        produced = 95 * dt               # messages per second in
        if t < DEPLOY:
            cost = r.randint(180, 420)
            consumed = produced * r.uniform(0.98, 1.03)
        else:
            cost = r.randint(9200, 11800)
            consumed = 500 * dt / (cost / 1000 + 0.2) * 0.16
        state["lag"] = max(300.0, state["lag"] + produced - consumed)
        level = "WARN" if state["lag"] > 50000 else "INFO"
        return (level, java(cpod, "kafka-consumer-order-status-0", "c.s.order.mq.OrderStatusConsumer",
                f"consume batch done topic=order-status group=order-status-sync records=500 cost={cost}ms lag={int(state['lag'])}"))
    cons.every(ws.start, ws.end, 30, batch, jitter=0.1)
    cons.add(DEPLOY + 20, "INFO", java(cpod, "main", "c.s.order.ConsumerApplication", "Started ConsumerApplication v1.6.0 in 8.2 seconds"))
    cons.add(DEPLOY + 21, "INFO", java(cpod, "main", "c.s.order.mq.OrderStatusConsumer", "risk review enabled mode=sync-per-message client=RiskClient.review timeout=2000ms"))
    risk.poisson(DEPLOY, ws.end, 2.5, lambda r, t: java(rpod, f"http-nio-8080-exec-{r.randint(1, 64)}", "c.s.risk.api.ReviewController",
                 f"review done orderId=2026112{r.randint(10**9, 10**10 - 1)} decision=PASS cost={r.randint(15, 22)}ms"))
    risk.poisson(ws.start, ws.end, 1.0, lambda r, t: java(rpod, f"http-nio-8080-exec-{r.randint(1, 64)}", "c.s.risk.api.ReviewController",
                 f"review done orderId=2026112{r.randint(10**9, 10**10 - 1)} decision=PASS cost={r.randint(15, 22)}ms"))
    # Loud, unrelated: partition reassignment of another topic logs many ERRORs on the broker.
    kafka.poisson(hms(19, 30), hms(20, 35), 4, lambda r, t: ("ERROR", f"[ReplicaFetcher replicaId=3, leaderId=1, fetcherId=0] Error for partition "
                  f"user-behavior-{r.randint(0, 23)} at offset {r.randint(10**8, 10**9)} (kafka.server.ReplicaFetcherThread) "
                  "org.apache.kafka.common.errors.NotLeaderOrFollowerException"))
    kafka.every(ws.start, ws.end, 300, lambda r, t: "[GroupCoordinator 1]: Stabilized group order-status-sync generation 41 with 1 members")
    cons.burst(ws.start, ws.end, 4, lambda r, t: ("ERROR", java(cpod, "kafka-consumer-order-status-0", "c.s.order.mq.OrderStatusConsumer",
               "消息反序列化失败，已跳过 offset=... cause=com.fasterxml.jackson.core.JsonParseException: Unexpected end-of-input")))

    ws.changes([
        {"service": "kafka", "kind": "ops", "at": hms(19, 30), "operator": "ops-bot", "ticket": "MQ-230",
         "summary": "分区重分配：topic user-behavior 24 个分区迁移到 broker-3（不涉及 order-status）"},
        {"service": "order-status-consumer", "kind": "deploy", "version": "v1.6.0", "at": DEPLOY, "operator": "wangfang", "ticket": "ORD-3402",
         "summary": "订单状态同步前增加风控复核：每条消息同步调用 risk-service（RiskClient.review）"},
        {"service": "risk-service", "kind": "deploy", "version": "v3.3.0", "at": hms(18, 50), "operator": "zhaomin", "ticket": "RISK-88",
         "summary": "风控规则热加载"},
    ], routine=["order-status-consumer", "risk-service", "kafka"])
    ws.mark("order-status-consumer (WARN/INFO)", "consume batch done topic=order-status group=order-status-sync records=500 cost=10xxxms lag=...")
    ws.mark("order-status-consumer", "risk review enabled mode=sync-per-message client=RiskClient.review timeout=2000ms")
    ws.mark("changes row", "order-status-consumer | deploy | v1.6.0 | 2026-11-26 19:40:00 | ORD-3402 | ... 每条消息同步调用 risk-service（RiskClient.review）")

    ws.doc("runbooks/kafka-consumer-lag.md", """
# Kafka 消费积压

## 消费速度下降导致积压
症状：`consume batch done ... lag=<N>` 中 lag 持续上涨；`cost` 明显变大（批次处理变慢）。这些是 INFO/WARN 日志，不是 ERROR。
判断：单批耗时 × 批次数 决定消费速度。批次耗时突然变大，对照消费者最近的发布：是否在消费逻辑中加入了同步远程调用或逐条数据库写入。
处置：回滚消费者；或把远程调用改为批量/异步后再发布。临时扩容分区数对已有积压无效。

## Broker 分区迁移
`NotLeaderOrFollowerException`：分区重分配期间副本拉取报错，属于预期，迁移结束后自愈。只影响正在迁移的 topic。

## Rebalance 频繁
`Preparing to rebalance group` 反复出现：消费者处理超时被踢出组，检查 `max.poll.interval.ms`。
""")
    ws.doc("runbooks/order-status.md", """
# 订单状态同步

订单状态由 order-status-consumer 消费 `order-status` 同步到查询库。积压时用户看到的订单状态延迟更新，但订单本身不受影响。
偶发 `消息反序列化失败，已跳过`：上游发了坏消息，已跳过，不影响消费进度。
""")
    ws.doc("runbooks/risk-service.md", """
# 风控服务 risk-service

单次复核耗时 15–25ms。复核接口不限流。风控规则热加载不影响接口耗时。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("晚上 8 点左右开始，订单状态同步延迟越来越大，为什么？", "zh", "2026-11-26T21:30:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["RiskClient", "风控复核", "risk-service", "消费变慢", "消费速度", "批次耗时"],
        "cause_any": ["ORD-3402", "v1.6.0", "同步调用", "sync-per-message"],
        "must_check": ["query_logs"]})
    ws.truth = """
# mq-consumer-lag：消费者每条消息同步调用风控，批次耗时从 0.3 秒变成 10 秒

**根因：** 19:40 发布的 order-status-consumer v1.6.0（ORD-3402）在消费逻辑里对每条消息同步调用 `RiskClient.review`；每批 500 条，单批耗时从 0.2–0.4 秒涨到 9–12 秒，消费速度远低于生产速度，lag 从几百涨到数十万。

**决定性证据：** `consume batch done ... cost=...ms lag=...`（INFO，超过 5 万后 WARN；19:40 前 cost 为几百毫秒）；启动行 `risk review enabled mode=sync-per-message`；`changes` 中 ORD-3402；Runbook《Kafka 消费积压》“消费速度下降导致积压”。

**干扰项：** kafka-broker 19:30–20:35 大量 `NotLeaderOrFollowerException`（ERROR 条数最多，但属于 user-behavior 的分区迁移 MQ-230，Runbook 写明是预期）；零星 `消息反序列化失败，已跳过`（ERROR）；risk-service 18:50 的发布（风控本身耗时正常）。
"""
    return ws
