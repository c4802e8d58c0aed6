#!/usr/bin/env python3
# Writes logs/ of incident2 (deterministic: fixed seed). Run from anywhere.
import os; os.chdir(os.path.dirname(os.path.abspath(__file__)))
import json, random, datetime as dt
random.seed(20261203)
base = dt.datetime(2026, 12, 3, 13, 0, 0)
end = dt.datetime(2026, 12, 3, 15, 0, 0)
change_at = dt.datetime(2026, 12, 3, 14, 20, 5)
full_at = dt.datetime(2026, 12, 3, 14, 24, 0)
def iso(t): return t.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (t.microsecond // 1000)
def plain(t): return t.strftime('%Y-%m-%d %H:%M:%S.') + '%03d' % (t.microsecond // 1000)
def hexid(n=32): return ''.join(random.choice('0123456789abcdef') for _ in range(n))
pods = ['cart-service-6b7f8d9c4-h2k9q', 'cart-service-6b7f8d9c4-w8m3z']
cart = []
t = base
while t < end:
    t += dt.timedelta(seconds=random.randint(8, 30), milliseconds=random.randint(0, 999))
    if t >= end: break
    pod = random.choice(pods); thread = random.randint(1, 200); user = random.randint(1000000, 9999999); trace = hexid()
    if t >= full_at and random.random() < 0.8:
        cart.append({"timestamp": iso(t), "level": "ERROR", "service": "cart-service", "message":
            f"{pod} [http-nio-8080-exec-{thread}] c.s.cart.web.CartController - PUT /api/v1/cart/items failed userId={user} traceId={trace}: org.springframework.data.redis.RedisSystemException: Error in execution; nested exception is io.lettuce.core.RedisCommandExecutionException: OOM command not allowed when used memory > 'maxmemory'. host=redis-cart:6379\n\tat io.lettuce.core.internal.ExceptionFactory.createExecutionException(ExceptionFactory.java:147)\n\t... 58 common frames omitted"})
    else:
        cart.append({"timestamp": iso(t), "level": "INFO", "service": "cart-service", "message":
            f"{pod} [http-nio-8080-exec-{thread}] c.s.cart.web.CartController - PUT /api/v1/cart/items ok userId={user} items={random.randint(1,9)} cost={random.randint(3,25)}ms traceId={trace}"})
# noise: pricing timeouts at 13:31-13:34
for k in range(4):
    t = dt.datetime(2026, 12, 3, 13, 31 + k, random.randint(0, 59), random.randint(0, 999) * 1000)
    cart.append({"timestamp": iso(t), "level": "WARN", "service": "cart-service", "message":
        f"{pods[k % 2]} [http-nio-8080-exec-{random.randint(1,200)}] c.s.cart.client.PricingClient - price lookup slow, using cached price sku=SKU-{random.randint(10000,99999)} cost={random.randint(800,1500)}ms traceId={hexid()}"})
cart.sort(key=lambda e: e["timestamp"])
with open('logs/cart-service.jsonl', 'w') as f:
    for e in cart: f.write(json.dumps(e, ensure_ascii=False) + '\n')

redis = []
t = base + dt.timedelta(seconds=30)
used = 1.21
while t < end:
    if t < change_at:
        used += 0.004
        redis.append(f"{plain(t)} INFO [redis-cart] memory stats used_memory={used:.2f}G maxmemory=8.00G maxmemory_policy=noeviction evicted_keys=0 rejected_writes=0")
    else:
        used = min(2.0, used + 0.25)
        if used >= 2.0 and t >= full_at - dt.timedelta(seconds=30):
            redis.append(f"{plain(t)} WARN [redis-cart] OOM: write commands rejected, used memory has reached maxmemory (used_memory=2.00G maxmemory=2.00G maxmemory_policy=noeviction rejected_writes_last_60s={random.randint(900, 1900)})")
        else:
            redis.append(f"{plain(t)} INFO [redis-cart] memory stats used_memory={used:.2f}G maxmemory=2.00G maxmemory_policy=noeviction evicted_keys=0 rejected_writes=0")
    t += dt.timedelta(seconds=60)
redis.append(f"{plain(change_at)} INFO [redis-cart] CONFIG SET maxmemory 2147483648 (was 8589934592) client=ops-bot change=OPS-2207")
redis.append(f"{plain(dt.datetime(2026,12,3,13,47,12,300000))} WARN [redis-cart] slowlog: command ZRANGEBYSCORE took 12ms")
redis.sort()
with open('logs/redis-cart.log', 'w') as f:
    for line in redis: f.write(line + '\n')

checkout = []
t = base
while t < end:
    t += dt.timedelta(seconds=random.randint(30, 90), milliseconds=random.randint(0, 999))
    if t >= end: break
    checkout.append({"timestamp": iso(t), "level": "INFO", "service": "checkout-service", "message":
        f"checkout-service-7d9c5-q4z8x [http-nio-8080-exec-{random.randint(1,100)}] c.s.checkout.CheckoutService - checkout ok orderNo={random.randint(10**11, 10**12)} cost={random.randint(40,200)}ms"})
t = dt.datetime(2026, 12, 3, 13, 12, 44, 120000)
checkout.append({"timestamp": iso(t), "level": "ERROR", "service": "checkout-service", "message":
    "checkout-service-7d9c5-q4z8x [http-nio-8080-exec-12] c.s.checkout.CheckoutService - coupon validation failed couponId=C-88121: java.lang.IllegalStateException: coupon expired"})
checkout.sort(key=lambda e: e["timestamp"])
with open('logs/checkout-service.jsonl', 'w') as f:
    for e in checkout: f.write(json.dumps(e, ensure_ascii=False) + '\n')
print(len(cart), len(redis), len(checkout))
