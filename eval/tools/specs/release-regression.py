"""A release breaks one endpoint (NPE); a louder unrelated error lives in another topic."""

from simlib import Workspace, hms, incident_toml, java, exec_thread, access, pod, noise_gateway
from specs import _common

NAME = "release-regression"
DEPLOY = hms(14, 0)


def build():
    ws = Workspace(NAME, "2026-11-10", hms(12), hms(15), lang="zh")
    gw, cart, rec = ws.topic("gateway", "log"), ws.topic("cart-service"), ws.topic("recommendation-service")
    old, new = pod("cart-service"), pod("cart-service", 3)
    live = lambda t: new if t >= DEPLOY + 30 else old

    def checkout(r, t):
        uid = r.randint(1_000_000, 1_999_999)
        if t >= DEPLOY + 30 and r.random() < 0.62:   # carts holding a coupon
            gw.add(t + 0.05, "ERROR", access(r, "POST", "/api/v1/cart/checkout", 500, 0.05, "cart-service/10.40.1.9:8080"))
            return ("ERROR", java(new, exec_thread(r), "c.s.cart.web.CheckoutController",
                    f"结算失败 userId={uid} couponId=CP{r.randint(10000, 99999)}\njava.lang.NullPointerException: Cannot invoke "
                    "\"java.math.BigDecimal.compareTo(java.math.BigDecimal)\" because \"threshold\" is null\n"
                    "\tat c.s.cart.coupon.CouponCalculator.apply(CouponCalculator.java:142)\n"
                    "\tat c.s.cart.service.CheckoutService.price(CheckoutService.java:77)"))
        gw.add(t + 0.1, "INFO", access(r, "POST", "/api/v1/cart/checkout", 200, 0.1, "cart-service/10.40.1.9:8080"))
        return java(live(t), exec_thread(r), "c.s.cart.service.CheckoutService", f"结算完成 userId={uid} items={r.randint(1, 6)} cost={r.randint(30, 90)}ms")

    cart.poisson(ws.start, ws.end, 2.0, checkout)
    cart.add(DEPLOY + 21, "INFO", java(new, "main", "c.s.cart.CartApplication", "Started CartApplication v5.2.0 in 9.4 seconds"))
    cart.add(DEPLOY + 22, "INFO", java(new, "main", "c.s.cart.coupon.CouponRuleLoader", "满减规则改为按门槛对象加载 rules=218 legacyThresholdField=false"))
    noise_gateway(ws, gw, [("GET", "/api/v1/cart", "cart-service/10.40.1.9:8080"),
                           ("GET", "/api/v1/recommend?slot=home", "recommendation-service/10.40.2.3:8080")], per_minute=2)
    # The loud distractor: recommendation-service's feature-store timeouts, all afternoon, higher count, degraded only.
    rpod = pod("recommendation-service")
    rec.poisson(ws.start, ws.end, 2.6, lambda r, t: ("ERROR", java(rpod, exec_thread(r), "c.s.rec.feature.FeatureClient",
                f"特征服务调用超时，返回兜底推荐 slot=home cost=800ms java.util.concurrent.TimeoutException: feature-store did not respond in 800ms")))
    rec.every(ws.start, ws.end, 300, lambda r, t: java(rpod, "stats", "c.s.rec.Stats", f"推荐请求 qps={r.randint(40, 60)} fallbackRate={r.uniform(0.04, 0.07):.2f}"))

    ws.changes([
        {"service": "cart-service", "version": "v5.2.0", "at": DEPLOY, "operator": "sunhao", "ticket": "CART-771",
         "summary": "优惠券满减规则重构：门槛字段改为 threshold 对象（CouponCalculator）"},
        {"service": "payment-service", "version": "v2.9.4", "at": hms(13, 55), "operator": "wangfang", "ticket": "PAY-1502",
         "summary": "日志脱敏：银行卡号打码（仅日志输出）"},
        {"service": "recommendation-service", "version": "v4.1.0", "at": hms(9, 30), "operator": "zhaomin", "ticket": "REC-410",
         "summary": "首页推荐位增加特征服务兜底"},
    ], table="deployments", routine=["cart-service", "payment-service"])
    ws.mark("cart-service, after the deploy", "结算失败 ... java.lang.NullPointerException ... at c.s.cart.coupon.CouponCalculator.apply(CouponCalculator.java:142)")
    ws.mark("deployments row", "cart-service | v5.2.0 | 2026-11-10 14:00:00 | CART-771 | 优惠券满减规则重构：门槛字段改为 threshold 对象（CouponCalculator）")

    ws.doc("runbooks/cart-service.md", """
# 购物车与结算 cart-service

## 结算接口 500
先看 cart-service 的 ERROR 日志里的异常栈。异常出现在新版本启动之后、只影响部分请求（例如只影响带优惠券的购物车），就是发布引入的缺陷：立即回滚到上一版本，再修复。

## 结算慢
优惠券服务响应慢时结算耗时上升，但不会返回 500（有 800ms 超时兜底）。

## 推荐位为空
推荐服务降级时购物车页推荐为空，不影响结算。
""")
    ws.doc("runbooks/recommendation-service.md", """
# 推荐服务 recommendation-service

## 特征服务超时
日志 `feature-store did not respond in <N>ms`：推荐服务返回兜底推荐（热门商品），`fallbackRate` 在 10% 以内属于正常水平。这是降级，不是故障，不影响任何交易链路。

## 推荐服务 500
查看推荐服务的异常栈；推荐接口失败只影响首页推荐位。
""")
    ws.doc("process/release.md", """
# 发布规范

## 发布后观察
发布后 15 分钟内观察错误率；新异常与新版本启动时间吻合时先回滚。

## 仅日志变更
只改日志输出（脱敏、格式）的发布不改变业务逻辑，走简化评审。
""")
    ws.doc("process/oncall.md", _common.ONCALL_ZH)
    ws.toml = incident_toml("两点以后购物车结算一直报 500，怎么回事？", "zh", "2026-11-10T15:00:00Z", expect={
        "outcome": "DIAGNOSIS", "root_cause_any": ["NullPointerException", "空指针", "CouponCalculator", "is null"],
        "cause_any": ["v5.2.0", "CART-771", "满减规则", "threshold 对象", "threshold object"],
        "must_check": ["query_logs"]})
    ws.truth = """
# release-regression：cart-service v5.2.0 的空指针

**根因：** 14:00 发布的 cart-service v5.2.0（CART-771）重构了满减规则，门槛字段改为 `threshold` 对象，旧券没有这个对象，`CouponCalculator.apply` 抛 `NullPointerException`，带优惠券的结算请求（约 6 成）返回 500。

**决定性证据：** cart-service 14:00:30 之后的 `结算失败 ... NullPointerException ... CouponCalculator.apply`；`Started CartApplication v5.2.0`；`deployments` 里 CART-771。

**干扰项：** recommendation-service 的 `feature-store did not respond`（ERROR 条数更多，整个下午都有，是降级，Runbook 写明不影响交易）；13:55 payment-service 仅日志脱敏的发布（时间更近，但与购物车无关）；Runbook《购物车》“结算慢”一节。
"""
    return ws
