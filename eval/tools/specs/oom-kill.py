"""An unbounded cache from a release six hours earlier grows the heap until the pods are OOM-killed."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "oom-kill"
RELEASE = hms(3, 10)
FIRST_KILL = hms(10, 41)


def heap_after_gc(t):
    return min(99.0, 31.0 + (t - RELEASE) / (FIRST_KILL - RELEASE) * 67.0)


def build():
    ws = Workspace(NAME, "2026-11-21", hms(8, 30), hms(11, 30), lang="en")
    gw, rec, kube = ws.topic("gateway", "log"), ws.topic("recommendation-service"), ws.topic("kube-events", "log", "kubelet")
    pods = [pod("recommendation-service", i) for i in range(3)]
    kills = {}

    def served(r, t):
        p = r.choice(pods)
        if t > FIRST_KILL and r.random() < 0.35:
            gw.add(t, "ERROR", access(r, "GET", "/api/v1/recommend?slot=home", 503, 0.001, "recommendation-service/10.80.1.4:8080"))
            return None
        gw.add(t + 0.05, "INFO", access(r, "GET", "/api/v1/recommend?slot=home", 200, 0.05, "recommendation-service/10.80.1.4:8080"))
        return ("DEBUG", java(p, exec_thread(r), "c.s.rec.api.RecommendController", f"served slot=home items=20 cost={r.randint(20, 80)}ms"))

    rec.poisson(ws.start, ws.end, 2.0, served)

    def gc(r, t):
        p = r.choice(pods)
        h = heap_after_gc(t) * r.uniform(0.97, 1.0)
        level = "WARN" if h > 85 else "INFO"
        pause = 40 + h * 3 if h < 85 else 900 + (h - 85) * 120
        return (level, java(p, "GC", "gc", f"Pause Young (G1 Evacuation Pause) heap after GC {h * 40.96:.0f}M/4096M ({h:.1f}%) pause={pause:.0f}ms"))
    rec.every(ws.start, ws.end, 90, gc)
    rec.every(ws.start, ws.end, 600, lambda r, t: java(pods[0], "stats", "c.s.rec.cache.LocalFeatureCache",
              f"feature cache stats entries={int((t - RELEASE) * 38.5)} hitRate=0.97 maxSize=unbounded"), jitter=0.0)
    for i, t in enumerate([FIRST_KILL, hms(10, 52), hms(11, 3), hms(11, 11), hms(11, 19)]):
        p = pods[i % 3]
        kube.add(t, "WARN", f"OOMKilling pod={p} container=app: Memory cgroup out of memory: Killed process 1 (java) total-vm:7340032kB anon-rss:5238000kB")
        kube.add(t + 1, "INFO", f"pod={p} container=app lastState=Terminated reason=OOMKilled exitCode=137 restartCount={i // 3 + 1}")
        kube.add(t + 40, "WARN", f"BackOff pod={p} Back-off restarting failed container app")
    kube.every(ws.start, ws.end, 900, lambda r, t: ("WARN", f"FailedScheduling pod=batch-report-{r.randint(1000, 9999)} 0/12 nodes are available: insufficient cpu"))
    # Innocent: a logging-format config change on the same service right before the first kill.
    rec.add(hms(10, 30, 5), "INFO", java(pods[1], "config-watcher", "c.s.common.config.ConfigWatcher", "reloaded logging config: json field names timestamp->ts"))
    noise_gateway(ws, gw, [("GET", "/api/v1/products/1", "catalog-service/10.80.2.2:8080")], per_minute=1.5)

    ws.changes([
        {"service": "recommendation-service", "kind": "deploy", "version": "v2.8.0", "at": RELEASE, "operator": "zhaomin", "ticket": "REC-512",
         "summary": "cache user feature vectors in-process (LocalFeatureCache) to cut feature-store calls"},
        {"service": "recommendation-service", "kind": "config", "at": hms(10, 30), "operator": "ops-bot", "ticket": "OPS-6001",
         "summary": "logging: rename JSON log field timestamp to ts (log format only)"},
        {"service": "batch-report", "kind": "deploy", "version": "v1.2.0", "at": hms(9, 15), "operator": "liuyang", "ticket": "BAT-77",
         "summary": "nightly report: add region breakdown"},
    ], routine=["recommendation-service", "catalog-service"])
    ws.table("pods", """CREATE TABLE pods (pod TEXT, service TEXT, memory_limit TEXT, jvm_xmx TEXT, restarts INTEGER,
  last_termination TEXT, sampled_at TEXT)""", [
        (pods[0], "recommendation-service", "5Gi", "4g", 2, "OOMKilled", ws.clock.sql(hms(11, 25))),
        (pods[1], "recommendation-service", "5Gi", "4g", 2, "OOMKilled", ws.clock.sql(hms(11, 25))),
        (pods[2], "recommendation-service", "5Gi", "4g", 1, "OOMKilled", ws.clock.sql(hms(11, 25))),
        (pod("catalog-service"), "catalog-service", "2Gi", "1536m", 0, "", ws.clock.sql(hms(11, 25))),
    ])
    ws.mark("kube-events", f"OOMKilling pod={pods[0]} container=app: Memory cgroup out of memory: Killed process 1 (java) ...")
    ws.mark("recommendation-service GC", "heap after GC climbing from ~76% at 08:30 to ~98% at 10:40 (WARN above 85%)")
    ws.mark("recommendation-service", "feature cache stats entries=... hitRate=0.97 maxSize=unbounded")
    ws.mark("changes row", "recommendation-service | deploy | v2.8.0 | 2026-11-21 03:10:00 | REC-512 | cache user feature vectors in-process (LocalFeatureCache) ...")

    ws.doc("runbooks/jvm-memory.md", """
# JVM memory: OOMKilled pods and heap growth

## Container OOMKilled
Symptom: `OOMKilling pod=<pod>` / `reason=OOMKilled exitCode=137` in kube events, restarts climbing.
Check the GC log: when `heap after GC` climbs steadily across hours, something retains objects (a leak or an unbounded cache). Find where the climb started and the change made then; it can be many hours before the first kill.
Mitigation: roll back the change that introduced the retention; raising the memory limit only delays the next kill.

## Long GC pauses
Symptom: `pause=` above 1000ms with the heap below 70%: allocation spikes, tune the young generation. Not a leak.

## Native memory
Container killed while `heap after GC` is flat and low: look at thread count and direct buffers.
""")
    ws.doc("runbooks/recommendation-service.md", """
# recommendation-service

## 503 on /api/v1/recommend
The gateway answers 503 while no pod is ready (restarts). The home page falls back to best sellers.

## Feature store latency
`feature-store did not respond`: degrade to defaults; not an outage.
""")
    ws.doc("runbooks/scheduling.md", """
# Pods pending

`FailedScheduling ... insufficient cpu` for batch jobs at night is expected; batch jobs wait for capacity.
""")
    ws.doc("process/oncall.md", _common.ONCALL_EN)
    ws.toml = incident_toml("Why do the recommendation-service pods keep restarting since 10:40?", "en", "2026-11-21T11:30:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["OOM", "out of memory", "memory leak", "heap", "LocalFeatureCache", "in-process cache"],
        "cause_any": ["REC-512", "v2.8.0", "unbounded", "no size bound", "maxSize"],
        "must_check": ["query_logs", "query_mysql"]})
    ws.truth = """
# oom-kill: an unbounded in-process cache from v2.8.0

**Root cause:** recommendation-service v2.8.0 (REC-512), deployed at 03:10, caches user feature vectors in `LocalFeatureCache` with no size bound (`maxSize=unbounded`). The heap after GC climbs for seven hours and from 10:41 the pods are OOM-killed one after another (`OOMKilled exitCode=137`), with 503s on `/api/v1/recommend` while they restart.

**Decisive evidence:** kube-events `OOMKilling pod=...`; GC lines at INFO, then WARN above 85%, `heap after GC` rising through the whole window; `feature cache stats ... maxSize=unbounded`; the REC-512 row (7.5 hours before the first kill); runbook "Container OOMKilled".

**Distractors:** OPS-6001 at 10:30, a logging-format change on the same service 11 minutes before the first kill (innocent: log format only); the runbook's "Long GC pauses" section; batch FailedScheduling warnings; BAT-77 at 09:15.
"""
    return ws
