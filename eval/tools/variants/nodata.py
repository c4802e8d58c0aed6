"""The unanswerable classes: the data shows a failure (or nothing of what is asked) and holds
no cause; the honest outcome is a fallback. Each breaks one link a diagnosis would need."""

from simlib import java, pod, noise_redis_blip, noise_cert_reminder, noise_jvm_gc
from variants.draw import rng
from variants.scene import Scene, minutes
from variants.wording import pick_onset, question, dependency_runbook

FALLBACK = {"outcome": "FALLBACK"}


def _scene(d, r, onset):
    return Scene(d, onset, minutes(r.randint(60, 150)), minutes(r.randint(30, 80)))


def _noise(sc, r):
    noise_redis_blip(sc.ws, sc.topic_of(sc.others[0].name), sc.ws.start + minutes(r.randint(5, 40)), pod(sc.others[0].name))
    noise_cert_reminder(sc.ws, sc.gateway(), "www.shop.example.com", r.randint(9, 30))
    noise_jvm_gc(sc.ws, sc.topic_of(sc.fail.name), pod(sc.fail.name))
    if sc.d.distractors["louder"]:
        sc.louder_error(r.randint(60, 140))


def _opaque_failure(sc, r):
    """The failing service's calls to a dependency whose own logs are not in the workspace."""
    svc, dep = sc.fail, sc.others[1].name
    style = r.randrange(3)

    def fail(r2, t):
        if t >= sc.onset and r2.random() < 0.7:
            text = [f"call {dep} failed status=500 body=<empty> POST http://{dep}/internal/v1/apply",
                    f"call {dep} failed: java.net.SocketException: Connection reset",
                    f"call {dep} failed status=503 body=<empty> after 2 retries"][style]
            return ("ERROR", java(pod(svc.name), f"http-nio-8080-exec-{r2.randint(1, 200)}", f"c.s.{svc.pkg}.client.DownstreamClient", text))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None)
    sc.runbooks[f"runbooks/{svc.name}.md"] = dependency_runbook(sc, dep, f"{dep}-internal")
    return dep


def _symptom_story(d, label):
    r = rng(d.seed, label)
    sc = _scene(d, r, pick_onset(r))
    dep = _opaque_failure(sc, r)
    _noise(sc, r)
    return r, sc, dep


def nodata_symptom(d):
    r, sc, dep = _symptom_story(d, "nodata-symptom")
    sc.routine_history()
    truth = (f"From {sc.ws.clock.hm(sc.onset)} {sc.fail.name}'s calls to {dep} fail; {dep}'s own logs are not in the workspace and "
             "no change near the onset is recorded anywhere. Nothing says why: the honest outcome is a fallback naming what is missing.")
    return sc.finish(question(r, sc), FALLBACK, truth)


def nodata_innocent(d):
    r, sc, dep = _symptom_story(d, "nodata-innocent")
    c = sc.innocent_change()
    sc.routine_history()
    truth = (f"From {sc.ws.clock.hm(sc.onset)} {sc.fail.name}'s calls to {dep} fail; the failing hop's logs are absent. The only recent "
             f"change, {c.ticket} ({c.target}, {sc.ws.clock.hm(c.at)}: {c.summary}), touches nothing on that path. Fallback.")
    return sc.finish(question(r, sc), FALLBACK, truth)


def nodata_after_onset(d):
    r, sc, dep = _symptom_story(d, "nodata-after-onset")
    c = sc.after_onset_change()
    if r.random() < 0.5:
        at = sc.onset + minutes(r.randint(2, 10))
        text = (f"{sc.fail.name}：调用 {dep} 的重试次数由 2 改为 3（故障处理）" if sc.zh else
                f"{sc.fail.name}: retries to {dep} 2 -> 3 (incident response)")
        c2 = sc.change(sc.fail.name, at, text, "after2", role="after-onset")
        sc.distractor_notes.append((f"{c2.ticket} at {sc.ws.clock.hm(at)}", "made after the onset (a response to it)"))
    sc.routine_history()
    truth = (f"From {sc.ws.clock.hm(sc.onset)} {sc.fail.name}'s calls to {dep} fail; the failing hop's logs are absent. The only "
             f"changes near it ({c.ticket} at {sc.ws.clock.hm(c.at)}) came after the errors began. Fallback.")
    return sc.finish(question(r, sc), FALLBACK, truth)


def nodata_lag(d):
    r = rng(d.seed, "nodata-lag")
    sc = _scene(d, r, pick_onset(r))
    svc = sc.fail
    group = f"{svc.name.split('-')[0]}-" + r.choice(["consumer", "sync", "indexer", "projector"])
    topic = r.choice(["order", "payment", "user", "stock", "audit"]) + "-" + r.choice(["events", "changes", "log"])
    sc.traffic(svc, None)
    cons = sc.infra("kafka-consumer", "jsonl", group)

    def lag(r2, t):
        grow = max(0.0, t - sc.onset) * r2.uniform(3.5, 4.5)
        lv = int(r2.randint(50, 400) + grow)
        return ("WARN" if lv > 50000 else "INFO",
                f"consumer group={group} topic={topic} partitions=12 lag={lv} batch_ms={r2.randint(80, 140)} records_per_poll=500")
    cons.every(sc.ws.start, sc.ws.end, 60, lag, jitter=0.0)
    broker = sc.infra("kafka-broker")
    broker.every(sc.ws.start, sc.ws.end, 600, lambda r2, t: "[ReplicaManager broker=2] ISR healthy for all partitions; under_replicated=0", jitter=0.0)
    noise_redis_blip(sc.ws, sc.topic_of(sc.others[0].name), sc.ws.start + minutes(r.randint(5, 40)), pod(sc.others[0].name))
    if sc.d.distractors["louder"]:
        sc.louder_error(r.randint(40, 100))
    if sc.d.distractors["innocent"]:
        sc.innocent_change(allow_same=False)
    sc.routine_history()
    sc.runbooks["runbooks/kafka-lag.md"] = (
        f"# 消费延迟\n\n## lag 上涨\n看消费者的 `batch_ms`：批处理变慢说明消费者自身变慢（对照它最近的发布）；批处理时间不变而 lag 上涨，"
        f"说明生产速率上升，要看生产方的监控（不在本工作区）。\n"
        if sc.zh else
        "# Consumer lag\n\n## Lag growing\nCheck the consumer's `batch_ms`: slower batches mean the consumer slowed (match its releases); "
        "steady batches with growing lag mean producers send more, which only the producers' metrics (not in this workspace) show.\n")
    hm = sc.ws.clock.hm(sc.onset)
    q = r.choice([f"为什么 {group} 从 {hm} 左右开始消费延迟越来越大？", f"{topic} 的消费积压（{group}）是什么原因？"] if sc.zh else
                 [f"Why has consumer lag of {group} on {topic} kept growing since about {hm}?"])
    truth = (f"Lag of `{group}` on `{topic}` grows from {hm} while its batch time stays flat and the brokers are healthy: producers "
             "probably send more, but no producer data is in the workspace and no change explains it. Fallback.")
    return sc.finish(q, FALLBACK, truth)


FOREIGN = [("order-events", "Kafka 消费组 `order-events` 为什么一直在 rebalance？", "Why does the Kafka consumer group `order-events` keep rebalancing?"),
           ("db-7", "db-7 这台数据库今天早上为什么主从延迟很大？", "Why is replication lag on db-7 so high this morning?"),
           ("redis-cluster-3", "redis-cluster-3 为什么内存打满了？", "Why did redis-cluster-3 run out of memory?"),
           ("/v2/invoices", "/v2/invoices 接口为什么一直超时？", "Why does /v2/invoices keep timing out?"),
           ("es-logs-2", "es-logs-2 集群为什么变红了？", "Why did the es-logs-2 cluster go red?"),
           ("settle-batch-job", "settle-batch-job 昨晚为什么没跑完？", "Why did settle-batch-job not finish last night?")]


def nodata_foreign(d):
    r = rng(d.seed, "nodata-foreign")
    sc = _scene(d, r, pick_onset(r))
    name, q_zh, q_en = r.choice(FOREIGN)
    dep = _opaque_failure(sc, r) if r.random() < 0.5 else None
    if dep is None:
        sc.traffic(sc.fail, None, gateway=sc.gateway())
    _noise(sc, r)
    if sc.d.distractors["innocent"]:
        sc.innocent_change()
    sc.routine_history()
    truth = (f"The question names `{name}`, which no log, table or document of the workspace mentions. Whatever else fails here "
             "is not what was asked. Fallback, naming the missing data.")
    ws = sc.finish(q_zh if sc.zh else q_en, FALLBACK, truth)
    ws.foreign_name = name
    return ws


BUILDERS = {"nodata-lag": nodata_lag, "nodata-foreign": nodata_foreign, "nodata-innocent": nodata_innocent,
            "nodata-after-onset": nodata_after_onset, "nodata-symptom": nodata_symptom}
