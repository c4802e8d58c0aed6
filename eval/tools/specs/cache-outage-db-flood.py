"""Redis restarts empty after host maintenance; cache misses flood product-db, whose errors are the loudest."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "cache-outage-db-flood"
DOWN = hms(20, 5)
UP = hms(20, 7, 30)


def build():
    ws = Workspace(NAME, "2026-11-27", hms(19), hms(21, 30), lang="zh")
    gw, prod, pdb, redis = ws.topic("gateway", "log"), ws.topic("product-service"), ws.topic("product-db", "log"), ws.topic("redis-cache", "log")
    ppod = [pod("product-service", i) for i in range(2)]

    def miss_ratio(t):
        if t < DOWN:
            return 0.03
        if t < UP:
            return 1.0
        return max(0.05, 0.97 - (t - UP) / 3600 * 0.6)      # the cache refills slowly under load

    def detail(r, t):
        p, sku = r.choice(ppod), f"SKU-{r.randint(100000, 999999)}"
        m = miss_ratio(t)
        if DOWN <= t < UP:
            return ("WARN", java(p, exec_thread(r), "c.s.product.cache.ProductCache",
                    f"缓存读取失败，回源数据库 sku={sku}: io.lettuce.core.RedisConnectionException: Unable to connect to redis-cache-0:6379"))
        if t >= DOWN and r.random() < m * 0.7:
            pdb.add(t + 0.01, "ERROR", "[ERROR] [MY-010272] [Server] Too many connections (max_connections=600)")
            gw.add(t + 1.0, "ERROR", access(r, "GET", f"/api/v1/products/{sku}", 500, 1.0, "product-service/10.12.1.6:8080"))
            return ("ERROR", java(p, exec_thread(r), "c.s.product.repo.ProductRepository",
                    f"查询商品失败 sku={sku}: java.sql.SQLNonTransientConnectionException: Too many connections"))
        gw.add(t + 0.03, "INFO", access(r, "GET", f"/api/v1/products/{sku}", 200, 0.03, "product-service/10.12.1.6:8080"))
        return ("DEBUG", java(p, exec_thread(r), "c.s.product.api.ProductController", f"detail sku={sku} cache={'miss' if r.random() < m else 'hit'}"))

    prod.poisson(ws.start, ws.end, lambda t: 3.0 if t < DOWN else 4.0, detail)
    prod.every(ws.start, ws.end, 300, lambda r, t: java(ppod[0], "stats", "c.s.product.cache.CacheStats",
               f"商品缓存命中率 hitRate={1 - miss_ratio(t):.2f} dbQps={int(120 + miss_ratio(t) * 5200)}"), jitter=0.0)
    redis.every(ws.start, DOWN, 600, lambda r, t: f"1:M * DB saved on disk? no (persistence disabled) used_memory={r.uniform(11.8, 12.1):.1f}G keys={r.randint(3_100_000, 3_200_000)}", jitter=0.0)
    redis.add(DOWN, "WARN", "1:signal-handler Received SIGTERM scheduling shutdown... (node node-12 drain for maintenance MNT-610)")
    redis.add(UP - 5, "INFO", "1:M * Redis version=7.0.12 starting, persistence disabled: empty dataset")
    redis.add(UP, "INFO", "1:M * Ready to accept connections")
    redis.every(UP + 60, ws.end, 600, lambda r, t: f"1:M used_memory={min(12.0, (t - UP) / 3600 * 7):.1f}G keys={int(min(3.15e6, (t - UP) * 900))}", jitter=0.0)
    pdb.every(ws.start, ws.end, 60, lambda r, t: f"mysqld status: Threads_connected={600 if miss_ratio(t) > 0.4 and t > DOWN else r.randint(90, 130)} "
              f"QPS={int(150 + miss_ratio(t) * 6000)} cpu={min(99, int(12 + miss_ratio(t) * 90))}%", jitter=0.0)
    noise_gateway(ws, gw, [("GET", "/api/v1/cart", "cart-service/10.12.2.2:8080")], per_minute=1.5)
    prod.add(hms(19, 58, 4), "INFO", java(ppod[1], "config-watcher", "c.s.common.config.ConfigWatcher", "reloaded logging config: pattern adds traceId"))

    ws.changes([
        {"service": "product-service", "kind": "config", "at": hms(19, 58), "operator": "ops-bot", "ticket": "OPS-7710",
         "summary": "日志格式增加 traceId（仅日志）"},
        {"service": "infra", "kind": "maintenance", "at": DOWN, "operator": "sunhao", "ticket": "MNT-610",
         "summary": "node-12 内核升级：驱逐节点上的 Pod 后重启（维护窗口 20:00-21:00）"},
        {"service": "product-service", "kind": "deploy", "version": "v8.3.0", "at": hms(-5 * 3600), "operator": "chenjing", "ticket": "PRD-219",
         "summary": "商品详情增加视频字段"},
    ], routine=["product-service", "cart-service"])
    ws.table("redis_nodes", "CREATE TABLE redis_nodes (name TEXT, role TEXT, node TEXT, persistence TEXT, replicas INTEGER, maxmemory TEXT)", [
        ("redis-cache-0", "master (single, no replica)", "node-12", "disabled", 0, "16G"),
        ("redis-session-0", "master", "node-04", "aof", 1, "4G"),
    ])
    ws.mark("redis-cache", "1:signal-handler Received SIGTERM scheduling shutdown... (node node-12 drain for maintenance MNT-610)")
    ws.mark("redis-cache", "1:M * Redis version=7.0.12 starting, persistence disabled: empty dataset")
    ws.mark("product-service", "商品缓存命中率 hitRate=0.00 dbQps=... (20:05; 0.97 before, 0.41 at 21:25)")
    ws.mark("redis_nodes row", "redis-cache-0 | master (single, no replica) | node-12 | disabled")

    ws.doc("runbooks/product-db.md", """
# 商品库 product-db

## Too many connections
症状：`Too many connections (max_connections=600)`，`Threads_connected` 顶到 600。
先判断流量从哪来：商品详情本应 97% 命中缓存。命中率骤降时数据库被回源流量打满，根因在缓存一侧（见《商品缓存》），不要调大 `max_connections`。
若命中率正常，才查慢查询与连接泄漏。

## 慢查询
`slow query` 集中出现在某条 SQL：补索引。
""")
    ws.doc("runbooks/product-cache.md", """
# 商品缓存 redis-cache

## 缓存实例重启后为空
`redis-cache-0` 是单实例、未开启持久化（见 `redis_nodes` 表）。实例所在节点维护或重启后数据全部丢失，所有商品详情回源数据库，命中率从 0.97 掉到接近 0，需要 1 小时以上才能重新热起来。
处置：开启商品详情的降级（只读静态页），限流回源；长期：增加副本、开启持久化、维护前先预热。

## 缓存超时
短时 `RedisCommandTimeoutException` 后 `Reconnected`：抖动，自愈。
""")
    ws.doc("process/maintenance.md", """
# 节点维护

维护窗口内逐台驱逐节点。驱逐前须确认节点上没有单副本有状态服务（Redis、ZooKeeper）。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("晚上 8 点过后商品详情页大量报错，商品库连接数被打满，根因是什么？", "zh", "2026-11-27T21:30:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["redis-cache", "缓存为空", "缓存被清空", "缓存失效", "缓存雪崩", "缓存击穿", "命中率", "回源"],
        "cause_any": ["MNT-610", "node-12", "重启", "节点维护", "内核升级", "驱逐", "持久化"],
        "must_check": ["query_logs"]})
    ws.truth = """
# cache-outage-db-flood：Redis 随节点维护重启，缓存清空，回源打满商品库

**根因：** 20:05 node-12 内核升级维护（MNT-610）驱逐了单实例、未开持久化的 `redis-cache-0`；20:07:30 恢复时数据为空，商品详情命中率从 0.97 掉到接近 0，回源流量打满 product-db（`Too many connections (max_connections=600)`），商品详情返回 500。

**决定性证据：** redis-cache `Received SIGTERM ... MNT-610`、`persistence disabled: empty dataset`；product-service `RedisConnectionException`（20:05–20:07，WARN）与 `商品缓存命中率 hitRate=0.00`（之前 0.97，一个多小时后才回到 0.4）；`redis_nodes` 中 `persistence=disabled, replicas=0`；Runbook《商品库》“Too many connections”与《商品缓存》“缓存实例重启后为空”。

**干扰项：** product-db 的 `Too many connections` 是条数最多的 ERROR，但它是结果不是原因（问题里也把它当成现象）；19:58 product-service 仅日志的配置变更 OPS-7710（最接近故障开始）；Runbook《商品库》“慢查询”一节；《商品缓存》“缓存超时”一节。
"""
    return ws
