"""A knowledge question over the pool-slow-query workspace: the answer is in a runbook, no diagnosis."""

from simlib import incident_toml
import importlib

NAME = "knowledge-pool-config"


def build():
    ws = importlib.import_module("specs.pool-slow-query").build(NAME)
    ws.evidence = []
    ws.toml = incident_toml("库存服务的数据库连接池最大连接数和获取连接超时分别配置的是多少？", "zh", "2026-11-03T11:00:00Z",
                            expect={"outcome": "ANSWER", "must_check": ["search_documents"]})
    ws.truth = """
# knowledge-pool-config：知识问答，不是诊断

工作区与 pool-slow-query 相同（数据由本例名重新生成）。问题问的是配置事实：Runbook《库存服务》“架构”一节写明 HikariCP `maximumPoolSize=10`、`connectionTimeout=3000ms`。正确结果是 ANSWER（引用该节），而不是对日志里正在发生的故障做诊断。

**干扰项：** 日志里同时有真实的连接池耗尽故障，一个急于诊断的代理可能把问答当成排障。
"""
    return ws
