"""Questions and the runbook text every class shares, in both languages."""

from simlib import hms


def pick_onset(r):
    return hms(r.randint(6, 21), r.randint(0, 59))


def when_zh(r, clock, t):
    h, m = clock.hm(t).split(":")
    return r.choice([f"{clock.hm(t)} 左右", f"{int(h)} 点 {int(m)} 分左右", f"{int(h)} 点多" if int(m) < 40 else f"{clock.hm(t)} 前后"])


def question(r, sc, extra_zh=(), extra_en=()):
    """A question about the failing service from its onset; several wordings per language."""
    svc, clock = sc.fail, sc.ws.clock
    approx = sc.onset - 60 * r.randint(0, 4)
    if sc.zh:
        w = when_zh(r, clock, approx)
        pool = [f"{svc.zh}从 {w}开始{svc.act_zh}一直报错，为什么？",
                f"{svc.name} {w}以后大量失败，是什么原因？",
                f"为什么{svc.zh}（{svc.name}）从 {w}起{svc.act_zh}失败？",
                f"{w}开始{svc.act_zh}失败很多，查一下原因"] + [q.format(w=w, svc=svc) for q in extra_zh]
    else:
        hm = clock.hm(approx)
        pool = [f"Why has {svc.name} been failing to {svc.act_en} since about {hm}?",
                f"{svc.name} errors since {hm}: what is the cause?",
                f"Since around {hm} we can't {svc.act_en}. Why?"] + [q.format(hm=hm, svc=svc) for q in extra_en]
    return r.choice(pool)


def must_check(sc, *extra):
    tools = ["query_logs", *extra]
    if sc.d.holder == "table" and "query_mysql" not in tools:
        tools.append("query_mysql")
    if sc.d.holder == "doc" and "search_documents" not in tools:
        tools.append("search_documents")
    return tools


def dependency_runbook(sc, dep, internal_topic):
    """A runbook naming the failing hop and saying its own logs are elsewhere."""
    if sc.zh:
        return (f"# {sc.fail.name}\n\n## 调用 {dep} 失败\n{sc.fail.name} 同步调用 {dep}。`status=5xx`、`Connection reset` "
                f"说明 {dep} 自身处理失败，原因要看 {dep} 的日志（主题 `{internal_topic}`，未接入本工作区）与它的监控。"
                f"{sc.fail.name} 会重试两次，之后返回错误。\n\n## 超时\n`Read timed out`：{dep} 响应慢，联系其值班。\n")
    return (f"# {sc.fail.name}\n\n## Calls to {dep} fail\n{sc.fail.name} calls {dep} synchronously. `status=5xx` or "
            f"`Connection reset` means {dep} failed the request itself; its cause is in {dep}'s own logs (topic "
            f"`{internal_topic}`, not connected to this workspace) and its metrics. {sc.fail.name} retries twice, then fails.\n\n"
            f"## Timeouts\n`Read timed out`: {dep} is slow; page its on-call.\n")
