"""One module per incident; SPECS is the suite, in the order of docs/eval-suite.md."""

SPECS = [
    "pool-slow-query",
    "release-regression",
    "cert-expired",
    "disk-full",
    "dns-failure",
    "oom-kill",
    "gc-pause",
    "mq-consumer-lag",
    "bad-config-push",
    "cache-outage-db-flood",
    "thread-pool-exhausted",
    "gateway-rate-limit",
    "downstream-timeout",
    "nodata-other-service",
    "nodata-symptom-only",
    "nodata-time-window",
    "nodata-innocent-change",
    "ctx-why-down-again",
    "ctx-broken-again",
    "knowledge-pool-config",
]
