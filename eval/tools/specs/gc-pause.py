"""A smaller heap turns search-service's GC into multi-second Full GCs; the signal is INFO, the ERRORs are noise."""

from simlib import Workspace, hms, incident_toml, java, access, pod, noise_gateway
from specs import _common

NAME = "gc-pause"
RESIZE = hms(16, 20)
ONSET = hms(16, 58)


def build():
    ws = Workspace(NAME, "2026-11-24", hms(15), hms(18), lang="zh")
    gw, srch = ws.topic("gateway", "log"), ws.topic("search-service")
    spod = [pod("search-service", i) for i in range(2)]
    stalls = []

    def gc(r, t):
        p = r.choice(spod)
        if t >= ONSET and r.random() < 0.55:
            pause = r.uniform(2.8, 6.4)
            stalls.append((t, pause))
            return ("INFO", java(p, "VM Thread", "gc", f"Pause Full (Allocation Failure) 2998M->2871M(3072M) {pause * 1000:.3f}ms"))
        heap = 3072 if t >= RESIZE else 8192
        used = r.randint(int(heap * 0.3), int(heap * 0.5))
        return ("INFO", java(p, "GC Thread#0", "gc", f"Pause Young (Normal) (G1 Evacuation Pause) {used + 300}M->{used}M({heap}M) {r.uniform(9, 35):.3f}ms"))
    srch.every(ws.start, ws.end, 40, gc)

    def search(r, t):
        slow = any(s <= t < s + p for s, p in stalls) or (t >= ONSET and r.random() < 0.3)
        rt = r.uniform(3.0, 6.5) if slow else r.uniform(0.03, 0.2)
        return access(r, "GET", f"/api/v1/search?q={r.choice(['phone', 'tv', 'shoes', 'coffee'])}", 200, rt, "search-service/10.90.1.2:8080")
    # The search requests are generated after the GC lines, so stalls are known.
    noise_gateway(ws, gw, [("GET", "/api/v1/cart", "cart-service/10.90.2.2:8080")], per_minute=1.5)
    gw.poisson(ws.start, ws.end, 3.0, search)
    srch.every(ws.start, ws.end, 300, lambda r, t: java(spod[0], "stats", "c.s.search.Stats",
               f"近5分钟搜索统计 qps={r.randint(30, 45)} p99={r.randint(4200, 6800) if t >= ONSET else r.randint(150, 260)}ms"), jitter=0.0)
    # Loud unrelated ERRORs: a nightly index job's shard refresh failures, all afternoon.
    srch.poisson(ws.start, ws.end, 1.2, lambda r, t: ("ERROR", java(spod[1], "index-refresher", "c.s.search.index.ShardRefresher",
                 f"索引分片刷新失败 index=products_v{r.randint(3, 4)} shard={r.randint(0, 11)} reason=version_conflict_engine_exception, 下次调度重试")))
    srch.add(RESIZE + 50, "INFO", java(spod[0], "main", "c.s.search.SearchApplication", "JVM args: -Xms3g -Xmx3g -XX:+UseG1GC (container memory limit 4Gi)"))
    srch.add(RESIZE + 52, "INFO", java(spod[0], "main", "c.s.search.SearchApplication", "Started SearchApplication v6.2.1 in 21.3 seconds"))

    ws.changes([
        {"service": "search-service", "kind": "config", "version": "v6.2.1", "at": RESIZE, "operator": "chenjing", "ticket": "COST-93",
         "summary": "降本：容器内存 limit 12Gi→4Gi，JAVA_OPTS -Xmx8g→-Xmx3g"},
        {"service": "search-service", "kind": "config", "at": hms(16, 50), "operator": "ops-bot", "ticket": "OPS-7021",
         "summary": "日志采样率 10%→5%（仅日志）"},
        {"service": "cart-service", "kind": "deploy", "version": "v5.2.3", "at": hms(16, 40), "operator": "sunhao", "ticket": "CART-790",
         "summary": "修复购物车角标数字"},
    ], routine=["search-service", "cart-service"])
    ws.mark("search-service GC (INFO)", "Pause Full (Allocation Failure) 2998M->2871M(3072M) 4xxx.xxxms")
    ws.mark("search-service", "JVM args: -Xms3g -Xmx3g -XX:+UseG1GC (container memory limit 4Gi)")
    ws.mark("changes row", "search-service | config | v6.2.1 | 2026-11-24 16:20:00 | COST-93 | 降本：容器内存 limit 12Gi→4Gi，JAVA_OPTS -Xmx8g→-Xmx3g")

    ws.doc("runbooks/jvm-gc.md", """
# JVM GC 停顿

## Full GC 停顿导致接口卡顿
症状：{service} 的 GC 日志出现 `Pause Full (Allocation Failure)`，停顿数秒；同时接口 p99 升到秒级，但错误率不一定升高（请求只是慢）。
注意：GC 日志是 INFO 级别，只看 ERROR 会漏掉。
原因：堆太小（`-Xmx` 被调小、数据量变大）或内存泄漏。对照 `changes` 中 `JAVA_OPTS`/内存规格的调整。
处置：恢复原来的堆大小与容器规格。

## Young GC 频繁
`Pause Young` 每秒多次但每次几十毫秒：分配速率高，一般不影响接口。
""")
    ws.doc("runbooks/search-service.md", """
# 搜索服务 search-service

## 搜索慢
先看 GC 停顿（《JVM GC 停顿》）；再看 ES 分片热点。

## 索引分片刷新失败
`索引分片刷新失败 ... version_conflict_engine_exception`：增量索引任务与全量任务并发导致的版本冲突，下次调度自动重试。只影响新商品的可见时延，不影响搜索接口的耗时。

## ES 分片热点
某个分片 CPU 打满时搜索 p99 升高，日志有 `search rejected execution`。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("搜索接口这一个小时经常卡好几秒，是什么原因？", "zh", "2026-11-24T18:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["Full GC", "GC 停顿", "GC pause", "堆内存", "Allocation Failure"],
        "cause_any": ["COST-93", "Xmx", "堆太小", "降本", "4Gi"],
        "must_check": ["query_logs"]})
    ws.truth = """
# gc-pause：堆从 8G 调到 3G，Full GC 停顿数秒

**根因：** 16:20 的降本变更 COST-93 把 search-service 容器内存从 12Gi 降到 4Gi、`-Xmx8g` 改为 `-Xmx3g`。工作集放不下，16:58 起频繁 `Pause Full (Allocation Failure)`，每次停顿 2.8–6.4 秒，搜索接口 p99 升到 4–7 秒（HTTP 200，只是慢）。

**决定性证据：** search-service 的 INFO 级 GC 行 `Pause Full (Allocation Failure) 2998M->2871M(3072M) ...ms`；启动行 `JVM args: -Xms3g -Xmx3g`；统计行 `p99=` 从 200ms 级升到 4000ms 以上；`changes` 中 COST-93；Runbook《JVM GC 停顿》（`{service}` 占位符）。

**干扰项：** `索引分片刷新失败`（ERROR，整个下午都有，条数多，Runbook 写明不影响接口耗时）；16:50 的日志采样率变更 OPS-7021（最近、同一服务，但只改日志）；16:40 cart-service 发布；“ES 分片热点”一节。
"""
    return ws
