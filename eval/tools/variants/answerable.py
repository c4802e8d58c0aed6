"""The answerable classes: each has one cause, dated before the onset, whose content names
what the failing side shows (the host, path, key, pool, certificate, record)."""

from simlib import hms, java, pod, noise_cert_reminder, noise_jvm_gc
from variants.draw import rng
from variants.scene import Scene, minutes
from variants.wording import pick_onset, question, must_check


def _scene(d, r, onset, cause_at):
    earliest = cause_at if d.holder == "log" else None
    return Scene(d, onset, minutes(r.randint(60, 150)), minutes(r.randint(30, 80)), earliest)


def _distract(sc, failures_per_minute, same_ok=True):
    dd = sc.d.distractors
    if dd["louder"]:
        span = (sc.ws.end - sc.onset) / 60
        sc.louder_error(int(failures_per_minute * span * 1.5) + 12)
    if dd["innocent"]:
        sc.innocent_change(allow_same=same_ok)
    if dd["after_onset"]:
        sc.after_onset_change()
    sc.routine_history()


def _expect(sc, root, cause, *checks):
    return {"outcome": "DIAGNOSIS", "root_cause_any": root, "cause_any": cause,
            "must_check": must_check(sc, *checks)}


# ------------------------------------------------------------------ disk-full

DISK_ROOT = ["No space left on device", "disk full", "disk is full", "full disk", "filesystem full", "磁盘满", "磁盘已满", "磁盘写满", "磁盘空间"]


def disk_full(d):
    r = rng(d.seed, "disk-full")
    onset = pick_onset(r)
    cause_at = onset - minutes(r.randint(60, 720))
    sc = _scene(d, r, onset, cause_at)
    svc, host = sc.fail, f"app-node-{r.randint(2, 48):02d}"
    path = f"/data/{svc.name}/" + r.choice(["spool", "uploads", "outbox", "tmp"])
    kind = r.choice(["debug", "logrotate", "backup"])
    base = r.uniform(30, 60)

    def used(t):
        if t < cause_at:
            return base
        return min(100.0, base + (t - cause_at) / (onset - cause_at) * (100 - base))

    if kind == "debug":
        en = (f"temporary: logging.level.root=DEBUG with payload dumps on {svc.name} ({host}) to chase a "
              "serialization bug; revert after capture")
        zh = f"临时：{svc.name}（{host}）logging.level.root=DEBUG 并打印报文，排查序列化问题，抓到日志后回退"
        cause_words = ["DEBUG", "logging.level"]
    elif kind == "logrotate":
        en = (f"logrotate on {host}: /etc/logrotate.d/{svc.name} switched to weekly rotation without maxsize "
              f"for /data/{svc.name}/logs (log pipeline migration)")
        zh = (f"{host} 日志轮转调整：/etc/logrotate.d/{svc.name} 改为每周轮转并去掉 maxsize"
              f"（/data/{svc.name}/logs，日志管道迁移）")
        cause_words = ["logrotate", "rotation", "日志轮转"]
    else:
        en = (f"backup job {svc.name}-dump on {host} now writes its dumps to /data/backups on the local disk "
              "instead of the NFS share, every 30 minutes")
        zh = f"{host} 上的 {svc.name}-dump 备份任务改为每 30 分钟写本地 /data/backups（原为 NFS 共享盘）"
        cause_words = ["backup", "备份", "/data/backups"]
    cause = sc.cause(svc.name, cause_at, en, zh)

    def fail(r2, t):
        if t >= onset and r2.random() < 0.9:
            return ("ERROR", java(pod(svc.name), "io-writer-1", f"c.s.{svc.pkg}.store.LocalStore",
                                  f"failed to write {path}/{r2.randint(10**7, 10**8 - 1)}.dat: java.io.IOException: No space left on device"))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None)
    node = sc.infra("node-agent")
    other = f"app-node-{r.randint(49, 60):02d}"
    node.every(sc.ws.start, sc.ws.end, 300, lambda r2, t: ("WARN" if used(t) > 85 else "INFO",
               f"host={host} mount=/data used={used(t):.1f}% avail={(100 - used(t)) * 2:.1f}GiB inodes_used=3%"), jitter=0.0)
    level = r.uniform(40, 60)
    node.every(sc.ws.start, sc.ws.end, 300, lambda r2, t: f"host={other} mount=/data used={level:.1f}% avail={(100 - level) * 2:.1f}GiB inodes_used=2%", jitter=0.0)
    full = node.add(onset + 2, "ERROR", f"host={host} mount=/data used=100.0% avail=0.0GiB: filesystem full")
    if kind == "debug":
        sc.topic_of(svc.name).every(max(sc.ws.start, cause_at), sc.ws.end, 120, lambda r2, t: ("DEBUG", java(
            pod(svc.name), "http-nio-8080-exec-3", "o.h.SQL", f"payload dump 48KB for request {r2.getrandbits(48):012x}")))
    if r.random() < 0.5:
        step, name = 1800, r.choice(["disk_usage", "host_disk_samples"])
        rows = [(sc.ws.clock.sql(t), host, "/data", round(used(t), 1)) for t in range(int(min(sc.ws.start, cause_at - 7200) // step * step), int(sc.ws.end), step)]
        sc.ws.table(name, f"CREATE TABLE {name} (sampled_at TEXT, host TEXT, mount TEXT, used_pct REAL)", rows)
    _distract(sc, 2.0 * 0.9, same_ok=False)
    sc.ws.mark(svc.name, f"failed to write {path}/...: java.io.IOException: No space left on device")
    sc.ws.mark("node-agent", full)
    sc.ws.mark("cause", sc.render_change(cause))
    sc.runbooks["runbooks/disk-space.md"] = (
        f"# 磁盘空间\n\n## 磁盘写满\n症状：服务写 `/data/<service>/` 下的文件时报 `No space left on device`，节点代理报 `mount=/data used=100%`。\n"
        f"原因：几乎总是某个变更让 `<host>` 上 `/data` 的写入量变大（日志级别、日志轮转、备份任务等）。空间从那次变更起持续上涨，"
        f"可能数小时后才写满，所以要找上涨开始时、内容提到该主机或路径的变更，而不是最近的一次。{sc.holder_ref()}\n"
        f"处置：回退该变更，清理 `/data` 下的大文件后重启服务。\n\n## 磁盘延迟\n`await` 超过 30ms：备份期间常见，不会写满磁盘。\n"
        if sc.zh else
        f"# Disk space\n\n## Filesystem full\nSymptom: a service writing under `/data/<service>/` fails with `No space left on device`; "
        f"the node agent reports `mount=/data used=100%`.\nCause: almost always a change that made more data land on `/data` of `<host>` "
        f"(log levels, log rotation, backup jobs). Usage climbs from that change on and may take hours to fill the disk: look for the change "
        f"that names the host or path when the climb started, not for the latest one. {sc.holder_ref()}\n"
        f"Mitigation: revert it, delete large files under `/data`, restart the service.\n\n## Disk latency\n`await` above 30 ms during backups is normal; it never fills a disk.\n")
    q = question(r, sc)
    truth = (f"**Root cause:** {cause.ticket} at {sc.ws.clock.sql(cause_at)} ({(onset - cause_at) / 3600:.1f} h before the onset): "
             f"{cause.summary}. `/data` on {host} climbed from {base:.0f}% to 100% at {sc.ws.clock.hm(onset)}; from then on "
             f"{svc.name} fails with `No space left on device` writing {path}.")
    return sc.finish(q, _expect(sc, DISK_ROOT, [cause.ticket] + cause_words), truth)


# ------------------------------------------------------------------ cert-expiry

CERT_ROOT = ["certificate_expired", "certificate expired", "expired certificate", "certificate has expired",
             "证书过期", "证书已过期", "证书到期"]


def cert_expiry(d):
    r = rng(d.seed, "cert-expiry")
    onset = pick_onset(r)
    sc = _scene(d, r, onset, onset)
    svc = sc.fail
    peer = r.choice(["api.unionbank.example.com", "gw.paylink.example.net", "open.bankhub.example.com",
                     "api.taxcloud.example.org", "edi.partner-logi.example.com"])
    cn = f"{svc.name}-client." + r.choice(["shop.example.com", "corp.example.net", "mall.example.cn"])
    renew = sc.ticket("renew", r.choice(["CERT", "SEC", "PKI"]))
    go = r.random() < 0.4
    issued = sc.ws.clock.sql(onset - 365 * 86400)
    not_after = sc.ws.clock.sql(onset)

    def fail(r2, t):
        if t >= onset and r2.random() < 0.65:
            if go:
                return ("ERROR", f"call partner failed: Post \"https://{peer}/v2/submit\": remote error: tls: expired certificate "
                                 f"request_id={r2.getrandbits(48):012x}")
            return ("ERROR", java(pod(svc.name), f"partner-io-{r2.randint(1, 8)}", f"c.s.{svc.pkg}.partner.PartnerClient",
                                  f"TLS handshake with {peer}:443 failed: javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired"))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None, fail_status=502)
    noise_cert_reminder(sc.ws, sc.gateway(), f"www.{cn.split('.', 1)[1]}", r.randint(9, 30))
    where = d.holder
    certs = [(cn, f"client (mTLS to {peer})", svc.name, issued, not_after, f"{renew} (open, unassigned)"),
             (f"www.{cn.split('.', 1)[1]}", "server", "gateway", sc.ws.clock.sql(onset - 200 * 86400), sc.ws.clock.sql(onset + 20 * 86400), ""),
             (f"api.{cn.split('.', 1)[1]}", "server", "gateway", sc.ws.clock.sql(onset - 100 * 86400), sc.ws.clock.sql(onset + 265 * 86400), "")]
    table = r.choice(["certificates", "tls_inventory", "cert_registry"])
    if where == "table":
        sc.ws.table(table, f"CREATE TABLE {table} (common_name TEXT, usage TEXT, used_by TEXT, not_before TEXT, not_after TEXT, renew_ticket TEXT)", certs)
        ref_zh, ref_en = f"证书清单在数据源 `{d.datasource}` 的 `{table}` 表", f"The certificate inventory is the `{table}` table of datasource `{d.datasource}`"
        record = " | ".join(certs[0])
    elif where == "log":
        inv = sc.infra("cert-inventory")
        for c in certs:
            inv.every(sc.ws.start, sc.ws.end, 3600, lambda r2, t, c=c: f"inventory: CN={c[0]} usage={c[1]} used_by={c[2]} not_after={c[4]} renew={c[5] or '-'}", jitter=0.0)
        ref_zh, ref_en = "证书清单由 cert-inventory 每小时写入日志主题 `cert-inventory`", "The certificate inventory is logged hourly to the `cert-inventory` topic"
        record = f"inventory: CN={cn} usage=client (mTLS to {peer}) used_by={svc.name} not_after={not_after} renew={renew} (open, unassigned)"
    else:
        rows = "".join(f"| {c[0]} | {c[1]} | {c[2]} | {c[4]} | {c[5] or '-'} |\n" for c in certs)
        sc.ws.doc("inventory/certificates.md", ("# 证书清单\n\n| CN | 用途 | 使用方 | not_after (UTC) | 续签单 |\n| --- | --- | --- | --- | --- |\n" if sc.zh else
                                                "# Certificate inventory\n\n| CN | usage | used by | not_after (UTC) | renewal |\n| --- | --- | --- | --- | --- |\n") + rows)
        ref_zh, ref_en = "证书清单见文档《证书清单》（inventory/certificates.md）", "The certificate inventory is the document inventory/certificates.md"
        record = f"inventory/certificates.md: | {cn} | client (mTLS to {peer}) | {svc.name} | {not_after} | {renew} (open, unassigned) |"
    sc.runbooks["runbooks/partner-tls.md"] = (
        f"# 对端 TLS\n\n## 证书过期\n症状：与 `<对端域名>` 的握手失败：`Received fatal alert: certificate_expired` 或 `tls: expired certificate`，其他对端正常。\n"
        f"原因：我方访问该对端的客户端证书（双向 TLS）已过 `not_after`。{ref_zh}，按用途里的对端域名找到 CN，看 `not_after` 与续签单。\n"
        f"处置：紧急续签并下发，重启生效；重启、改路由都不能解决。\n\n## 证书到期提醒\n`cert-checker: certificate for <域名> expires in <N> days` 只是提醒，证书仍有效。\n"
        if sc.zh else
        f"# Partner TLS\n\n## Expired certificate\nSymptom: handshakes with `<partner-host>` fail with `Received fatal alert: certificate_expired` or "
        f"`tls: expired certificate`; other partners work.\nCause: our client certificate for that partner (mutual TLS) is past its `not_after`. "
        f"{ref_en}: find the CN whose usage names the partner host and read `not_after` and the renewal ticket.\n"
        f"Mitigation: renew and roll it out, restart; restarts or route changes alone never help.\n\n## Expiry reminders\n"
        f"`cert-checker: certificate for <host> expires in <N> days` is a reminder; the certificate is still valid.\n")
    _distract(sc, 2.0 * 0.65)
    sc.ws.mark(svc.name, f"TLS handshake with {peer} failed: certificate_expired" if not go else f"Post https://{peer}/...: remote error: tls: expired certificate")
    sc.ws.mark("certificate record", record)
    q = question(r, sc, extra_zh=["{w}开始调用 " + peer + " 全部失败，为什么？"], extra_en=["Why do all calls to " + peer + " fail since {hm}?"])
    truth = (f"**Root cause:** the client certificate `{cn}` that {svc.name} presents to `{peer}` reached its `not_after` "
             f"({not_after} UTC; renewal {renew} open, unassigned); every handshake since fails.")
    return sc.finish(q, _expect(sc, CERT_ROOT, [cn, renew, "not_after", "client certificate", "客户端证书"]), truth)


# ------------------------------------------------------------------ dns-removed

DNS_ROOT = ["could not resolve", "NXDOMAIN", "no such host", "DNS", "解析失败", "无法解析", "域名解析"]


def dns_removed(d):
    r = rng(d.seed, "dns-removed")
    onset = pick_onset(r)
    ttl = r.choice([300, 600, 1800, 3600, 7200, 14400])
    cause_at = onset - ttl - r.randint(0, 90)
    sc = _scene(d, r, onset, cause_at)
    svc = sc.fail
    dep = r.choice(["ledger-db", "rates-api", "geo-api", "files", "kyc-api", "tax-calc", "legacy-auth"])
    zone = r.choice(["internal.example.net", "svc.corp.local", "prod.example.internal"])
    host = f"{dep}.{zone}"
    target = f"{dep}-old.{zone}" if r.random() < 0.5 else f"10.{r.randint(20, 90)}.{r.randint(1, 9)}.{r.randint(10, 99)}"
    rtype = "CNAME" if "." in target and not target[0].isdigit() else "A"
    en = f"DNS: remove record {host} ({rtype} {target}, TTL {ttl}s) from zone {zone}; {dep} migrated, old name no longer used"
    zh = f"DNS：从 {zone} 删除记录 {host}（{rtype} {target}，TTL {ttl}s），{dep} 已迁移，旧域名不再使用"
    cause = sc.cause("dns", cause_at, en, zh)

    def fail(r2, t):
        if t >= onset and r2.random() < 0.85:
            return ("ERROR", java(pod(svc.name), f"worker-{r2.randint(1, 16)}", f"c.s.{svc.pkg}.client.{dep.title().replace('-', '')}Client",
                                  f"request to https://{host}/v1/lookup failed: could not resolve {host} (NXDOMAIN)"))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.5 else None)
    if r.random() < 0.6:
        dns = sc.infra("coredns")
        dns.every(sc.ws.start, sc.ws.end, 900, lambda r2, t: "[INFO] plugin/reload: Running configuration SHA512 = 5c1e...", jitter=0.0)
        dns.burst(onset, sc.ws.end, 12, lambda r2, t: ("INFO", f'[INFO] 10.{r2.randint(1, 90)}.{r2.randint(0, 9)}.{r2.randint(2, 250)}:{r2.randint(30000, 60000)} - "A IN {host}. udp 64 false 512" NXDOMAIN qr,aa,rd 150 0.0003s'))
    sc.runbooks["runbooks/dns.md"] = (
        f"# 域名解析\n\n## 域名无法解析\n症状：`could not resolve <host>`（NXDOMAIN）。\n原因：该域名的记录被删除或改名。删除要等记录的 TTL 过期、"
        f"缓存失效后才表现出来，所以故障可能在变更之后很久才出现。{sc.holder_ref()}按域名找删除它的变更。\n处置：恢复记录，或让调用方改用新域名。\n\n"
        f"## 解析超时\n`i/o timeout` 到上游 DNS：DNS 服务器不可达，与 NXDOMAIN 不同。\n"
        if sc.zh else
        f"# DNS\n\n## Name does not resolve\nSymptom: `could not resolve <host>` (NXDOMAIN).\nCause: the record was removed or renamed. A removal shows "
        f"only once its TTL has passed and caches expire, so the failure can start long after the change. {sc.holder_ref()} Find the change that names the host.\n"
        f"Mitigation: restore the record, or move callers to the new name.\n\n## Resolution timeouts\n`i/o timeout` to the upstream DNS: the server is unreachable; not NXDOMAIN.\n")
    _distract(sc, 2.0 * 0.85)
    sc.ws.mark(svc.name, f"request to https://{host}/v1/lookup failed: could not resolve {host} (NXDOMAIN)")
    sc.ws.mark("cause", sc.render_change(cause))
    q = question(r, sc)
    truth = (f"**Root cause:** {cause.ticket} removed the DNS record `{host}` at {sc.ws.clock.sql(cause_at)} (TTL {ttl}s); once cached "
             f"answers expired (about {sc.ws.clock.hm(onset)}), {svc.name} could not resolve {host}.")
    return sc.finish(q, _expect(sc, DNS_ROOT, [cause.ticket, "removed", "remove record", "deleted", "删除"]), truth)


# ------------------------------------------------------------------ heap-shrunk

HEAP_ROOT = ["OutOfMemoryError", "Java heap space", "OOM", "out of memory", "memory exhausted", "内存溢出", "内存不足", "内存耗尽", "Full GC", "OOMKilled"]


def heap_shrunk(d):
    r = rng(d.seed, "heap-shrunk")
    onset = pick_onset(r)
    cause_at = onset - minutes(r.randint(3, 360))
    sc = _scene(d, r, onset, cause_at)
    svc = sc.fail
    old, new = r.choice([(4, 1), (8, 2), (6, 1), (4, 2), (8, 3)])
    xmx = r.random() < 0.55
    if xmx:
        en = f"{svc.name}: JAVA_OPTS -Xmx{old}g -> -Xmx{new}g (align heap with the new node pool)"
        zh = f"{svc.name}：JAVA_OPTS 由 -Xmx{old}g 调整为 -Xmx{new}g（与新节点池规格对齐）"
        cause_words = ["Xmx", f"-Xmx{new}g", "堆内存上限", "heap size"]
    else:
        en = f"{svc.name}: resources.limits.memory {old + 1}Gi -> {new}Gi (cost review)"
        zh = f"{svc.name}：resources.limits.memory 由 {old + 1}Gi 调整为 {new}Gi（成本优化）"
        cause_words = ["limits.memory", f"{new}Gi", "memory limit", "内存限制", "内存上限"]
    cause = sc.cause(svc.name, cause_at, en, zh)
    heap = lambda t: (new if (t >= cause_at and xmx) else old) * 1024  # noqa: E731

    def fail(r2, t):
        if t >= onset and r2.random() < 0.6:
            if xmx:
                return ("ERROR", java(pod(svc.name, r2.randint(0, 2)), f"http-nio-8080-exec-{r2.randint(1, 200)}",
                                      f"c.s.{svc.pkg}.web.ErrorHandler", "request failed: java.lang.OutOfMemoryError: Java heap space"))
            return ("ERROR", java(pod(svc.name, r2.randint(0, 2)), "main", f"c.s.{svc.pkg}.web.ErrorHandler",
                                  "request aborted: connection closed while the pod restarted"))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None, fail_status=503)
    t_gc = sc.topic_of(svc.name)

    def gc(r2, t):
        h = heap(t)
        if t >= onset - 600 and xmx:
            used = int(h * r2.uniform(0.93, 0.99))
            return ("WARN", java(pod(svc.name), "GC", "gc", f"Pause Full (Allocation Failure) {used}M->{used - r2.randint(5, 40)}M({h}M) {r2.uniform(900, 3000):.3f}ms"))
        used = int(h * r2.uniform(0.3, 0.5)) if t < cause_at else int(min(0.9, 0.5 + (t - cause_at) / max(onset - cause_at, 1) * 0.4) * h)
        return java(pod(svc.name), "GC", "gc", f"Pause Young (Normal) (G1 Evacuation Pause) {used + 200}M->{used}M({h}M) {r2.uniform(8, 60):.3f}ms")
    t_gc.every(sc.ws.start, sc.ws.end, 90, gc)
    if not xmx:
        kube = sc.infra("kube-events", "log", "kubelet")
        kills = []
        t = onset
        i = 0
        while t < sc.ws.end:
            p = pod(svc.name, i % 3)
            kills.append(kube.add(t, "WARN", f"OOMKilling pod={p} container=app: Memory cgroup out of memory: Killed process 1 (java) anon-rss:{new * 1048576 - r.randint(100, 9000)}kB"))
            kube.add(t + 1, "INFO", f"pod={p} container=app lastState=Terminated reason=OOMKilled exitCode=137 restartCount={i // 3 + 1}")
            t += minutes(r.randint(4, 14))
            i += 1
        sc.ws.mark("kube-events", kills[0])
    else:
        sc.ws.mark(svc.name, "request failed: java.lang.OutOfMemoryError: Java heap space")
    noise_jvm_gc(sc.ws, sc.topic_of(sc.others[0].name), pod(sc.others[0].name))
    sc.runbooks["runbooks/jvm-memory.md"] = (
        "# JVM 内存\n\n## OOM 与频繁 Full GC\n症状：`OutOfMemoryError: Java heap space`、频繁 `Pause Full`，或 Pod `OOMKilled`。\n"
        "判断：GC 日志括号里的堆上限（如 `(1024M)`）或 Pod 内存上限比以前小：是配置把堆或内存上限调低了，找调整 `-Xmx` 或 "
        f"`resources.limits.memory` 的变更。上限不变而 heap after GC 持续上涨：泄漏，找引入缓存的发布。{sc.holder_ref()}\n"
        "处置：回退配置；扩容只能推迟问题。\n\n## GC 停顿偶发变长\n堆使用率低于 70% 时的长停顿：分配突增，调新生代，不是 OOM。\n"
        if sc.zh else
        "# JVM memory\n\n## OOM and repeated full GCs\nSymptom: `OutOfMemoryError: Java heap space`, repeated `Pause Full`, or pods `OOMKilled`.\n"
        "Assessment: when the heap size in the GC lines (e.g. `(1024M)`) or the pod memory limit is smaller than before, a configuration change "
        f"lowered it: find the change to `-Xmx` or `resources.limits.memory`. Same limit but `heap after GC` climbing: a leak, find the release. {sc.holder_ref()}\n"
        "Mitigation: revert the setting; scaling out only delays it.\n\n## Occasional long pauses\nLong pauses with the heap below 70%: allocation spikes; not an OOM.\n")
    _distract(sc, 2.0 * 0.6)
    sc.ws.mark("cause", sc.render_change(cause))
    q = question(r, sc, extra_zh=["为什么 {svc.name} 从 {w}开始不停重启、请求失败？"], extra_en=["Why does {svc.name} keep failing and restarting since {hm}?"])
    truth = (f"**Root cause:** {cause.ticket} at {sc.ws.clock.sql(cause_at)}: {cause.summary}. Under load the smaller "
             f"{'heap' if xmx else 'memory limit'} runs out from about {sc.ws.clock.hm(onset)} "
             f"({'OutOfMemoryError, full GCs' if xmx else 'OOMKilled pods, restarts'}).")
    return sc.finish(q, _expect(sc, HEAP_ROOT, [cause.ticket] + cause_words), truth)


# ------------------------------------------------------------------ pool-slow-query

POOL_ROOT = ["Connection is not available", "connection pool", "pool exhausted", "HikariPool", "连接池", "slow query",
             "慢查询", "full table scan", "全表扫描"]


def _camel(s):
    return "".join(p.title() for p in s.split("_"))


def pool_slow_query(d):
    r = rng(d.seed, "pool-slow-query")
    onset = pick_onset(r)
    deploy_at = onset - minutes(r.randint(1, 30))
    sc = _scene(d, r, onset, deploy_at)
    svc = sc.fail
    table = r.choice(["stock_ledger", "order_items", "coupon_usage", "audit_trail", "user_events", "invoice_lines"])
    col = r.choice(["sku_code", "user_phone", "biz_no", "external_ref", "merchant_id"])
    rows_n = r.randint(5_000_000, 20_000_000)
    method = f"{_camel(table)}Mapper.selectBy{_camel(col)}"
    version = f"v{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 9)}"
    en = f"{svc.name} {version}: reconcile before each request: look up {table} by {col} for the last 30 days ({method})"
    zh = f"{svc.name} {version}：每次请求前按 {col} 查询 {table} 近 30 天记录做对账（{method}）"
    cause = sc.cause(svc.name, deploy_at, en, zh, kind="deploy")

    def fail(r2, t):
        if t >= onset and r2.random() < min(0.95, (t - onset) / 240 + 0.3):
            return ("ERROR", java(pod(svc.name, 1), f"http-nio-8080-exec-{r2.randint(1, 200)}", f"c.s.{svc.pkg}.service.MainService",
                                  "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 3000ms."))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None)
    db = sc.infra(f"{svc.name}-db")

    def status(r2, t):
        busy = t > onset
        return (f"mysqld status: Threads_connected={r2.randint(40, 48) if busy else r2.randint(18, 24)} "
                f"Threads_running={r2.randint(14, 30) if busy else r2.randint(1, 3)} cpu={r2.randint(78, 97) if busy else r2.randint(8, 19)}%")
    db.every(sc.ws.start, sc.ws.end, 60, status, jitter=0.0)

    def scan(r2, t):
        q = min(38.0, 2.5 + (t - deploy_at) / 40) * r2.uniform(0.8, 1.2)
        return ("WARN", f"slow query: Query_time: {q:.6f} Rows_sent: {r2.randint(0, 6)} Rows_examined: {rows_n + r2.randint(0, 4000)} "
                f"sql=\"SELECT * FROM {table} WHERE {col} = '{r2.randint(10**6, 10**7)}' AND created_at >= NOW() - INTERVAL 30 DAY\"")
    first = db.add(deploy_at + 41, "WARN", scan(sc.rng("first-scan"), deploy_at + 41)[1])
    db.poisson(deploy_at + 42, sc.ws.end, 5, scan)
    sc.topic_of(svc.name).every(sc.ws.start, sc.ws.end, 120, lambda r2, t: java(pod(svc.name, 1), "monitor", "c.s.common.db.DataSourceMonitor",
                                f"HikariPool-1 stats total=10 active={10 if t > onset else r2.randint(1, 3)} idle={0 if t > onset else r2.randint(7, 9)} "
                                f"waiting={r2.randint(12, 40) if t > onset else 0}"))
    sc.runbooks["runbooks/db-pool.md"] = (
        "# 数据库连接池\n\n## 连接池耗尽：慢查询占满连接\n症状：`HikariPool-1 - Connection is not available, request timed out after 3000ms.`，"
        "`DataSourceMonitor` 显示 `active=10 idle=0`。\n原因：连接被慢 SQL 长时间占用。在 `<service>-db` 慢日志里找 `Rows_examined` 远大于 "
        f"`Rows_sent` 的新 SQL，再找新增了这条查询的发布。{sc.holder_ref()}\n处置：回滚该发布；不要调大连接池。\n\n"
        "## 连接泄漏\n症状：`Apparent connection leak detected`，连接数缓慢上涨。连接泄漏不会伴随数据库 CPU 升高。\n"
        if sc.zh else
        "# Database connection pools\n\n## Pool exhausted by slow queries\nSymptom: `HikariPool-1 - Connection is not available, request timed out after 3000ms.`, "
        "`DataSourceMonitor` shows `active=10 idle=0`.\nCause: slow SQL holds the connections. In the `<service>-db` slow log find a new statement whose "
        f"`Rows_examined` dwarfs `Rows_sent`, then the release that added it. {sc.holder_ref()}\nMitigation: roll that release back; do not grow the pool.\n\n"
        "## Connection leak\nSymptom: `Apparent connection leak detected`, connections creeping up; a leak never raises database CPU.\n")
    _distract(sc, 2.0 * 0.8)
    sc.ws.mark(f"{db.name}, first scan", first)
    sc.ws.mark("cause", sc.render_change(cause))
    q = question(r, sc)
    truth = (f"**Root cause:** {svc.name} {version} ({cause.ticket}, {sc.ws.clock.sql(deploy_at)}) added `{method}`, a lookup of the "
             f"{rows_n}-row `{table}` by `{col}` (no index): full scans hold the 10 pool connections and from about "
             f"{sc.ws.clock.hm(onset)} requests fail with `Connection is not available`.")
    return sc.finish(q, _expect(sc, POOL_ROOT + [table], [cause.ticket, version, method]), truth)


# ------------------------------------------------------------------ timeout-push

TIMEOUT_ROOT = ["Read timed out", "timed out", "timeout", "超时"]


def timeout_push(d):
    r = rng(d.seed, "timeout-push")
    onset = pick_onset(r)
    push_at = onset - r.randint(3, 40)
    sc = _scene(d, r, onset, push_at)
    svc = sc.fail
    dep = sc.others[1].name
    key = f"clients.{dep}.read-timeout-ms"
    old, new = r.choice([2000, 3000, 5000]), r.choice([20, 30, 50])
    en = f"config push {svc.name}.yaml: {key} {old} -> {new} (unify client timeouts to {old // 1000 or 1}s)"
    zh = f"配置推送 {svc.name}.yaml：{key} 由 {old} 改为 {new}（统一客户端超时为 {old // 1000 or 1} 秒）"
    cause = sc.cause(svc.name, push_at, en, zh)

    def fail(r2, t):
        if t >= onset and r2.random() < 0.85:
            return ("ERROR", java(pod(svc.name), f"http-nio-8080-exec-{r2.randint(1, 200)}", f"c.s.{svc.pkg}.client.DownstreamClient",
                                  f"call {dep} failed after {new + r2.randint(0, 3)}ms: java.net.SocketTimeoutException: Read timed out (timeout={new}ms)"))
        return None
    sc.traffic(svc, fail, gateway=sc.gateway() if r.random() < 0.6 else None)
    if r.random() < 0.5:
        sc.jlog(svc.name, push_at + 1.5, "INFO", "config.RefreshListener", f"config refreshed keys=[{key}]")
    cfg = sc.infra("config-agent")
    cfg.every(sc.ws.start, sc.ws.end, 600, lambda r2, t: "heartbeat to config-center ok servers=3", jitter=0.0)
    sc.runbooks["runbooks/config-center.md"] = (
        f"# 配置中心\n\n## 配置推送后出现超时\n症状：调用 `<下游>` 报 `Read timed out`，`timeout=` 的值远小于平时（默认 {old}ms）。\n"
        f"原因：推送改了客户端超时，单位写错（毫秒/秒）最常见。{sc.holder_ref()}按 `<service>.yaml` 与键名找推送，对比新旧值。\n处置：在配置中心回滚，几秒内生效。\n\n"
        f"## 下游变慢\n`timeout=` 是平时的值而下游响应变慢：联系下游值班。\n"
        if sc.zh else
        f"# Config center\n\n## Timeouts after a config push\nSymptom: calls to `<downstream>` fail with `Read timed out` and `timeout=` far below the usual "
        f"(default {old}ms).\nCause: a push changed a client timeout, most often with the wrong unit. {sc.holder_ref()} Find the push by `<service>.yaml` and the key; compare old and new.\n"
        f"Mitigation: roll back in the config center; it applies within seconds.\n\n## Slow downstream\n`timeout=` at its usual value and the downstream slow: page its on-call.\n")
    _distract(sc, 2.0 * 0.85)
    sc.ws.mark(svc.name, f"call {dep} failed after ...ms: java.net.SocketTimeoutException: Read timed out (timeout={new}ms)")
    sc.ws.mark("cause", sc.render_change(cause))
    q = question(r, sc)
    truth = (f"**Root cause:** {cause.ticket} at {sc.ws.clock.sql(push_at)} pushed `{key}` from {old} to {new} (ms); "
             f"{svc.name}'s calls to {dep} time out after {new} ms from {sc.ws.clock.hm(onset)}.")
    return sc.finish(q, _expect(sc, TIMEOUT_ROOT, [cause.ticket, key, f"{old} -> {new}", f"由 {old} 改为 {new}"]), truth)


BUILDERS = {"disk-full": disk_full, "cert-expiry": cert_expiry, "dns-removed": dns_removed,
            "heap-shrunk": heap_shrunk, "pool-slow-query": pool_slow_query, "timeout-push": timeout_push}
