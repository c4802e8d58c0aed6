"""Seeded draws every class shares: the ranges, names, schemas, clocks and wordings' languages.

A variant's every choice comes from random.Random seeded by crc32 of the seed
and a label, so the same seed draws the same incident on any machine and
adding a draw under a new label leaves the other draws as they were.
"""

import random
import zlib
from dataclasses import dataclass, field

# Seeds below DEV_END are the development range; seeds at or above it are the
# measuring range, drawn from only to measure a finished method once.
DEV_END = 100000

ANSWERABLE = ["disk-full", "cert-expiry", "dns-removed", "heap-shrunk", "pool-slow-query", "timeout-push"]
UNANSWERABLE = ["nodata-lag", "nodata-foreign", "nodata-innocent", "nodata-after-onset", "nodata-symptom"]
CLASSES = ANSWERABLE + UNANSWERABLE


def rng(seed, label):
    return random.Random(zlib.crc32(f"diagd-variants:{seed}:{label}".encode()))


def parse_seeds(text):
    """'A-B' or 'A' -> range(A, B + 1)."""
    first, _, last = text.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise SystemExit(f"--seeds: expected A-B or A, got {text!r}")
    if a < 0 or b < a:
        raise SystemExit(f"--seeds: expected 0 <= A <= B, got {text!r}")
    return range(a, b + 1)


def draw_class(seed):
    """Answerable classes a little more often: they are what a method is developed on."""
    r = rng(seed, "class")
    return r.choice(ANSWERABLE) if r.random() < 0.6 else r.choice(UNANSWERABLE)


@dataclass(frozen=True)
class Service:
    name: str
    zh: str          # how a Chinese question names it
    route: str       # the route the gateway shows for its main operation
    pkg: str         # its Java package tail
    act_en: str      # "place orders"
    act_zh: str      # "下单"
    ok_en: str       # a successful operation, {id} for its id
    ok_zh: str


SERVICES = [
    Service("order-service", "订单服务", "POST /api/v1/orders", "order", "place orders", "下单",
            "order placed orderId={id}", "下单成功 orderId={id}"),
    Service("payment-service", "支付服务", "POST /api/v1/pay", "pay", "pay", "支付",
            "payment ok orderId={id}", "支付成功 orderId={id}"),
    Service("inventory-service", "库存服务", "POST /internal/v1/stock/reserve", "inv", "reserve stock", "预占库存",
            "stock reserved orderId={id}", "库存预占成功 orderId={id}"),
    Service("user-service", "用户服务", "GET /api/v1/users/me", "user", "load profiles", "加载用户信息",
            "profile loaded userId={id}", "用户信息加载成功 userId={id}"),
    Service("notification-service", "通知服务", "POST /internal/v1/notify", "notify", "send notifications", "发送通知",
            "notification sent bizId={id}", "通知发送成功 bizId={id}"),
    Service("checkout-api", "结算服务", "POST /api/v2/checkout", "checkout", "check out", "结算",
            "checkout completed cartId={id}", "结算完成 cartId={id}"),
    Service("billing-worker", "账单服务", "POST /internal/v1/invoices", "billing", "issue invoices", "开票",
            "invoice issued invoiceId={id}", "开票成功 invoiceId={id}"),
    Service("shipping-service", "物流服务", "POST /api/v1/shipments", "ship", "create shipments", "创建运单",
            "shipment created waybill={id}", "运单创建成功 waybill={id}"),
    Service("coupon-service", "优惠券服务", "POST /api/v1/coupons/claim", "coupon", "claim coupons", "领券",
            "coupon claimed couponId={id}", "领券成功 couponId={id}"),
    Service("ledger-service", "记账服务", "POST /internal/v1/ledger/entries", "ledger", "post ledger entries", "记账",
            "entry posted entryId={id}", "记账成功 entryId={id}"),
    Service("points-service", "积分服务", "POST /api/v1/points/redeem", "points", "redeem points", "积分兑换",
            "points redeemed userId={id}", "积分兑换成功 userId={id}"),
    Service("report-service", "报表服务", "GET /api/v1/reports/daily", "report", "load reports", "查看报表",
            "report rendered reportId={id}", "报表生成成功 reportId={id}"),
]

OPERATORS = ["zhanglei", "wangfang", "liuyang", "chenjing", "zhaomin", "sunhao", "lihua", "gaoyan", "ops-bot", "deploy-bot"]
TICKET_PREFIXES = ["CHG", "OPS", "RFC", "CR", "SRE", "PLAT", "NET", "ITSM", "TKT", "WO"]
MULTI_TOPICS = ["apps", "k8s-apps", "platform-apps", "prod-services"]
AUDIT_TOPICS = ["deploy-audit", "change-audit", "ops-audit", "argocd", "cmdb-sync"]
DATASOURCES = ["ops", "cmdb", "opsdb", "itsm"]


@dataclass(frozen=True)
class ChangeSchema:
    """How one team records changes: table and column names, and whether a kind column exists."""
    table: str
    id_col: str      # holds the ticket id (TEXT)
    target_col: str
    time_col: str
    actor_col: str
    text_col: str
    kind_col: str    # "" when the table has none

    def create_sql(self):
        cols = []
        if self.id_col == "id":
            cols.append("id TEXT PRIMARY KEY")
        else:
            cols += ["seq INTEGER PRIMARY KEY", f"{self.id_col} TEXT NOT NULL"]
        cols.append(f"{self.target_col} TEXT NOT NULL")
        if self.kind_col:
            cols.append(f"{self.kind_col} TEXT")
        cols += [f"{self.time_col} TEXT NOT NULL", f"{self.actor_col} TEXT", f"{self.text_col} TEXT"]
        return f"CREATE TABLE {self.table} (" + ", ".join(cols) + ")"


def draw_schema(r):
    return ChangeSchema(
        table=r.choice(["deployments", "changes", "ops_tickets", "cmdb_events", "change_log", "change_requests"]),
        id_col=r.choice(["ticket", "id", "ref"]),
        target_col=r.choice(["target", "service", "ci_name"]),
        time_col=r.choice(["applied_at", "opened_at", "created_at", "changed_at"]),
        actor_col=r.choice(["actor", "owner", "changed_by"]),
        text_col=r.choice(["summary", "title", "description", "notes"]),
        kind_col=r.choice(["", "kind", "change_type"]))


@dataclass
class Change:
    """One recorded change; `at` is seconds from midnight of the incident day."""
    target: str
    at: float
    summary: str
    ticket: str
    actor: str
    kind: str = "config"
    role: str = "routine"   # cause | innocent | after-onset | routine


@dataclass
class Draws:
    seed: int
    cls: str
    lang: str                       # the question's (and the workspace's) language
    date: str
    schema: ChangeSchema
    datasource: str
    holder: str                     # where the cause lives: table | log | doc
    audit_topic: str
    multi_topic: str                # "" or the shared topic the services log to
    prefix: str                     # the ticket prefix
    services: list = field(default_factory=list)   # failing first, then others
    distractors: dict = field(default_factory=dict)

    def ticket(self, r, prefix=None):
        return f"{prefix or self.prefix}-{r.randint(1000, 99999)}"


def draw(seed, cls):
    r = rng(seed, "draws")
    month, day = r.randint(9, 12), r.randint(1, 28)
    services = r.sample(SERVICES, 4)
    return Draws(
        seed=seed, cls=cls, lang="zh" if r.random() < 0.7 else "en",
        date=f"2026-{month:02d}-{day:02d}", schema=draw_schema(r), datasource=r.choice(DATASOURCES),
        holder=r.choices(["table", "log", "doc"], weights=[5, 3, 2])[0],
        audit_topic=r.choice(AUDIT_TOPICS),
        multi_topic=r.choice(MULTI_TOPICS) if r.random() < 0.3 else "",
        prefix=r.choice(TICKET_PREFIXES), services=services,
        distractors={"louder": r.random() < 0.5, "innocent": r.random() < 0.7,
                     "after_onset": r.random() < 0.4, "other_lang": r.random() < 0.3})
