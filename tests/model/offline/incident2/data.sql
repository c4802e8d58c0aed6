-- The incident2 datasource: the change log of the platform and the carts.
CREATE TABLE changes (
  id          INTEGER PRIMARY KEY,
  component   TEXT NOT NULL,   -- the service or system changed
  change_type TEXT NOT NULL,   -- release | config
  applied_at  TEXT NOT NULL,   -- UTC
  author      TEXT NOT NULL,
  ticket      TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE TABLE carts (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  status     TEXT NOT NULL,    -- ACTIVE | CHECKED_OUT
  updated_at TEXT NOT NULL
);
INSERT INTO changes VALUES
  (1, 'search-service', 'release', '2026-12-02 09:10:00', 'lina', 'SRCH-88', 'v5.2.0: typo tolerance in product search'),
  (2, 'cart-service', 'release', '2026-12-02 16:00:00', 'mo', 'CART-120', 'v2.8.0: save for later'),
  (3, 'pricing-service', 'config', '2026-12-03 13:40:00', 'wu', 'PRC-19', 'price cache ttl 60s -> 30s'),
  (4, 'redis-cart', 'config', '2026-12-03 14:20:00', 'ops-bot', 'OPS-2207', 'cost reduction: maxmemory 8gb -> 2gb (maxmemory-policy noeviction unchanged)'),
  (5, 'checkout-service', 'release', '2026-12-03 14:40:00', 'lee', 'CHK-301', 'v3.1.4: coupon banner on the checkout page');
INSERT INTO carts VALUES
  (1, 4410233, 'ACTIVE', '2026-12-03 14:10:00'),
  (2, 5120931, 'CHECKED_OUT', '2026-12-03 14:12:30'),
  (3, 6630120, 'ACTIVE', '2026-12-03 14:19:10'),
  (4, 7710002, 'ACTIVE', '2026-12-03 14:21:45');
