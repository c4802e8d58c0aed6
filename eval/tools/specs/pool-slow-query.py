"""A release adds a query on an unindexed column; the scans exhaust the service's pool."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway, noise_redis_blip
from specs import _common

NAME = "pool-slow-query"
ONSET = hms(10, 12)
DEPLOY = hms(10, 10)


def build(name=NAME):
    ws = Workspace(name, "2026-11-03", hms(8), hms(11), lang="zh")
    gw = ws.topic("gateway", "log")
    order = ws.topic("order-service")
    inv = ws.topic("inventory-service")
    idb = ws.topic("inventory-db", "log")
    o_pod, i_pod = pod("order-service"), pod("inventory-service")
    i_new = pod("inventory-service", 2)

    def p_fail(t):
        return 0.0 if t < ONSET else min(0.95, (t - ONSET) / 240)

    def checkout(r, t):
        sku = f"SKU-{r.randint(100000, 199999)}"
        oid = f"20261103{r.randint(10**9, 10**10 - 1)}"
        if r.random() < p_fail(t):
            inv.add(t + 3.0, "ERROR", java(i_new if t > DEPLOY else i_pod, exec_thread(r), "c.s.inv.service.ReserveService",
                    f"库存预占失败 sku={sku} orderId={oid}: java.sql.SQLTransientConnectionException: "
                    "HikariPool-1 - Connection is not available, request timed out after 3000ms."))
            gw.add(t + 3.1, "ERROR", access(r, "POST", "/api/v1/orders", 500, 3.1, "order-service/10.20.1.11:8080"))
            return ("ERROR", java(o_pod, exec_thread(r), "c.s.order.client.InventoryClient",
                    f"调用库存服务失败 status=500 POST http://inventory-service/internal/v1/stock/reserve orderId={oid} cost=3012ms"))
        gw.add(t + 0.2, "INFO", access(r, "POST", "/api/v1/orders", 200, 0.2, "order-service/10.20.1.11:8080"))
        return java(o_pod, exec_thread(r), "c.s.order.service.OrderService",
                    f"下单成功 orderId={oid} sku={sku} cost={r.randint(120, 260)}ms")

    order.poisson(ws.start, ws.end, 2.2, checkout)
    noise_gateway(ws, gw, [("GET", "/api/v1/products?page=2", "catalog-service/10.20.3.5:8080"),
                           ("GET", "/api/v1/search?q=phone", "search-service/10.20.4.7:8080")], per_minute=1.5)
    # Innocent: the search rate limit tightened at 10:05; a few 429s on /api/v1/search only.
    gw.burst(hms(10, 5, 30), ws.end, 28, lambda r, t: access(r, "GET", "/api/v1/search?q=tv", 429, 0.0, "-"), level="WARN")
    noise_redis_blip(ws, order, hms(8, 51), o_pod)
    order.burst(ws.start, ws.end, 6, lambda r, t: java(o_pod, exec_thread(r), "c.s.order.service.OrderService",
                "重复下单被拦截 org.springframework.dao.DuplicateKeyException: Duplicate entry for key 'orders.uk_user_request'"),
                level="WARN")

    # inventory-db: healthy status lines, then the new query's full scans.
    def status(r, t):
        busy = t > ONSET
        return (f"mysqld status: Threads_connected={r.randint(40, 48) if busy else r.randint(18, 24)} "
                f"Threads_running={r.randint(14, 30) if busy else r.randint(1, 3)} "
                f"Innodb_rows_read/s={r.randint(2_000_000, 4_000_000) if busy else r.randint(9000, 20000)} "
                f"cpu={r.randint(78, 97) if busy else r.randint(8, 19)}%")
    idb.every(ws.start, ws.end, 60, status, jitter=0.0)

    def scan(r, t):
        q = min(38.0, 2.5 + (t - DEPLOY) / 40) * r.uniform(0.8, 1.2)
        return ("WARN", f"slow query: Query_time: {q:.6f} Lock_time: 0.000{r.randint(100, 199)} Rows_sent: {r.randint(0, 6)} "
                f"Rows_examined: {9_204_113 + r.randint(0, 4000)} user=inv_app db=inventory "
                f"sql=\"SELECT id, qty, biz_type, created_at FROM stock_ledger WHERE sku_code = 'SKU-{r.randint(100000, 199999)}' "
                f"AND created_at >= '2026-10-04 10:10:00' ORDER BY created_at DESC\"")
    first = idb.add(DEPLOY + 41.2, "WARN", scan(ws.rng("first"), DEPLOY + 41.2)[1])
    idb.poisson(DEPLOY + 42, ws.end, 5, scan)
    idb.every(ws.start, ws.end, 3600, lambda r, t: ("WARN", "slow query: Query_time: 1.204311 Lock_time: 0.000120 Rows_sent: 24 "
              "Rows_examined: 48211 user=report db=inventory sql=\"SELECT warehouse_id, SUM(qty) FROM stock GROUP BY warehouse_id\""))

    inv.add(DEPLOY + 12, "INFO", java(i_new, "main", "c.s.inv.InventoryApplication", "Started InventoryApplication v3.4.0 in 11.8 seconds"))
    inv.add(DEPLOY + 14, "INFO", java(i_new, "main", "c.s.inv.reconcile.ReserveReconciler",
            "预占对账已开启 lookbackDays=30 query=StockLedgerMapper.selectBySkuCode"))
    inv.every(ws.start, ws.end, 120, lambda r, t: java(i_new if t > DEPLOY else i_pod, "monitor", "c.s.common.db.DataSourceMonitor",
              f"HikariPool-1 stats total=10 active={10 if t > ONSET + 60 else r.randint(1, 3)} idle={0 if t > ONSET + 60 else r.randint(7, 9)} "
              f"waiting={r.randint(12, 40) if t > ONSET + 60 else 0}"))

    ws.changes([
        {"service": "gateway", "kind": "config", "version": "", "at": hms(10, 5), "operator": "ops-bot", "ticket": "OPS-2231",
         "summary": "网关限流：/api/v1/search 由 200r/s 调整为 150r/s（只作用于搜索接口）"},
        {"service": "inventory-service", "kind": "deploy", "version": "v3.4.0", "at": DEPLOY, "operator": "liuyang",
         "ticket": "INV-882", "summary": "库存预占对账：预占前按 sku_code 查询 stock_ledger 近 30 天流水（StockLedgerMapper.selectBySkuCode）"},
        {"service": "order-service", "kind": "deploy", "version": "v5.9.2", "at": hms(9, 20), "operator": "chenjing",
         "ticket": "ORD-3310", "summary": "订单列表页文案修改"},
    ], routine=["inventory-service", "order-service", "gateway"])
    ws.table("table_stats", """CREATE TABLE table_stats (db TEXT, table_name TEXT, table_rows INTEGER, indexes TEXT)""", [
        ("inventory", "stock", 182_330, "PRIMARY(id), uk_sku_warehouse(sku_code, warehouse_id)"),
        ("inventory", "stock_ledger", 9_204_113, "PRIMARY(id), idx_created_at(created_at), idx_order_id(order_id)"),
        ("order", "orders", 3_120_554, "PRIMARY(id), uk_user_request(user_id, request_id), idx_created_at(created_at)"),
    ])
    ws.mark("inventory-db, first scan of the new query", first)
    ws.mark("changes row", "inventory-service | deploy | v3.4.0 | 2026-11-03 10:10:00 | INV-882 | 库存预占对账：预占前按 sku_code 查询 stock_ledger ...")
    ws.mark("table_stats row", "stock_ledger | 9204113 | PRIMARY(id), idx_created_at(created_at), idx_order_id(order_id)  (no sku_code index)")

    ws.doc("runbooks/inventory-service.md", """
# 库存服务 inventory-service Runbook

## 架构
订单服务下单时同步调用 `POST /internal/v1/stock/reserve` 预占库存。库存服务使用 HikariCP，`maximumPoolSize=10`，`connectionTimeout=3000ms`。

## 连接池耗尽：慢查询占满连接
症状：`HikariPool-1 - Connection is not available, request timed out after 3000ms.`，`DataSourceMonitor` 显示 `active=10 idle=0` 且 `waiting` 持续大于 0。
原因：连接被慢 SQL 长时间占用。先在 inventory-db 慢日志里找 `Rows_examined` 远大于 `Rows_sent` 的新 SQL，对照最近的发布是否新增了查询。
处置：回滚引入新查询的版本；补索引须经 DBA 评审。不要调大连接池，那只会把更多慢查询压到数据库上。

## 连接泄漏
症状：`Apparent connection leak detected`（`leakDetectionThreshold` 告警），连接数缓慢上涨、长时间不归还。
处置：抓线程栈，定位未关闭连接的代码路径。注意：连接泄漏不会伴随数据库 CPU 升高。

## 库存扣减冲突
`Deadlock found when trying to get lock`：偶发，框架自动重试一次，无需处理。
""")
    ws.doc("runbooks/mysql-slow-query.md", """
# MySQL 慢查询处理（通用）

## 慢日志怎么读
每条 `slow query:` 行含 `Query_time`、`Lock_time`、`Rows_sent`、`Rows_examined`。
- `Rows_examined` 远大于 `Rows_sent`：没有走索引，全表扫描。对照 `table_stats` 表里 `<表名>` 的索引，看 `WHERE` 的列是否有以它开头的索引。
- `Lock_time` 大：锁等待，不是扫描。

## 影响
全表扫描会把数据库 CPU 与 `Threads_running` 打高，{service} 的连接被长时间占用，连接池随之耗尽。

## 处置
回滚引入该 SQL 的发布；索引变更走 DBA 评审。
""")
    ws.doc("runbooks/gateway-5xx.md", """
# 网关 5xx 与 429

## 500
上游服务返回 500，网关原样透传。按 `upstream=` 找到上游服务，看它的 ERROR 日志。

## 429 限流
`limit_req` 触发时返回 429，只作用于配置了限流的路由（见变更单）。429 不是 5xx，也不会影响其他路由。

## 504
上游超过 `proxy_read_timeout`（15 秒）未响应。
""")
    ws.doc("runbooks/redis-latency.md", _common.REDIS_ZH)
    ws.doc("process/oncall.md", _common.ONCALL_ZH)

    ws.toml = incident_toml("订单服务 10 点多开始下单大量报 500，是什么原因？", "zh", "2026-11-03T11:00:00Z", expect={
        "outcome": "DIAGNOSIS",
        "root_cause_any": ["慢查询", "全表扫描", "stock_ledger", "slow query", "full table scan"],
        "cause_any": ["INV-882", "v3.4.0", "selectBySkuCode", "索引", "index"],
        "must_check": ["query_logs", "query_mysql"]})
    ws.truth = """
# pool-slow-query：库存服务新查询全表扫描，连接池耗尽

**根因：** 10:10 发布的 inventory-service v3.4.0（INV-882）在预占库存前按 `sku_code` 查询 `stock_ledger` 近 30 天流水；这张 920 万行的表没有以 `sku_code` 开头的索引（`table_stats`），每次预占都在 inventory-db 上全表扫描，扫描越积越慢，占满库存服务的 10 个连接，预占报 `HikariPool-1 - Connection is not available, request timed out after 3000ms.`，订单服务收到 500，网关 `POST /api/v1/orders` 返回 500。

**决定性证据：** inventory-db 10:10:41 起的 `slow query ... Rows_examined: 92041xx ... FROM stock_ledger WHERE sku_code`；inventory-service 的连接池错误与 `DataSourceMonitor active=10 idle=0`；`changes` 里 INV-882；`table_stats` 中 `stock_ledger` 没有 `sku_code` 索引；Runbook《库存服务》“连接池耗尽：慢查询占满连接”。

**干扰项：** 10:05 网关限流变更 OPS-2231（只作用于 `/api/v1/search`，429 不是 500）；《库存服务》里“连接泄漏”一节（看着像，但没有 `Apparent connection leak detected`）；08:51 的 Redis 超时（自愈）；每小时一次的对账慢查询（1.2 秒，5 万行）；`DuplicateKeyException`（正常拦截）；09:20 order-service 文案发布。
"""
    return ws
