"""Vocabulary and grammar of the ``support`` pool: a customer-support and API-documentation
agent for a SaaS payments product, plus the organisational chatter such an agent picks up
(meetings, VPN certificates, catering).

Latent instructions are plan prices, rate limits, token lifetimes, payment retries and
settlement, refund rules, shipping times, webhook behaviour, escalation rules, account
operations and recurring office logistics. Subject spaces are composed from the tables below
(for example every region x carrier pairing), so there are several hundred distinct subjects.
"""

from __future__ import annotations

import zlib
from typing import Any

from memmaint.datasets.grammar import Entity, Family, Style, Vocabulary


def E(name: str, *aliases: str) -> Entity:
    return Entity(name, aliases)


def _crc(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


PLANS = (
    (E("Starter plan", "Starter tier", "Starter subscription", "the Starter package"), 9,
     "1 seat and 1,000 API calls a day"),
    (E("Pro plan", "Pro tier", "Pro subscription", "Pro"), 29, "5 seats and 50,000 API calls a day"),
    (E("Team plan", "Team tier", "Team subscription", "the Team package"), 79,
     "15 seats and shared workspaces"),
    (E("Business plan", "Business tier", "Business subscription", "Business"), 199,
     "50 seats, SSO and audit logs"),
    (E("Growth plan", "Growth tier", "Growth bundle"), 49, "10 seats and priority email support"),
    (E("Enterprise plan", "Enterprise tier", "Enterprise contract", "Enterprise"), 499,
     "unlimited seats and a named account manager"),
)
ENDPOINTS = (
    E("/v1/charges", "the charges endpoint", "Charges API", "POST /v1/charges"),
    E("/v1/customers", "the customers endpoint", "Customers API", "GET /v1/customers"),
    E("/v1/invoices", "the invoices endpoint", "Invoices API", "invoice listing"),
    E("/v2/search", "the search endpoint", "Search API", "search queries"),
    E("/v1/exports", "the exports endpoint", "Exports API", "bulk exports"),
    E("/v1/payouts", "the payouts endpoint", "Payouts API", "payout requests"),
    E("/v1/files", "the file upload endpoint", "Files API", "file uploads"),
    E("/v1/events", "the events endpoint", "Events API", "event polling"),
)
UNITS = (("second", "sec"), ("minute", "min"), ("hour", "hr"))
TOKENS = (
    (E("OAuth access tokens", "access tokens", "bearer tokens"), "1 hour",
     "use the refresh token to get a new one"),
    (E("refresh tokens", "OAuth refresh tokens"), "30 days",
     "the user has to sign in again"),
    (E("password reset links", "reset links", "password reset emails"), "30 minutes",
     "the user requests a new link from the login page"),
    (E("email verification links", "verification emails", "confirm-email links"), "24 hours",
     "resend the verification from account settings"),
    (E("magic sign-in links", "magic links", "passwordless login links"), "15 minutes",
     "ask for a fresh link"),
    (E("team invite links", "invitations", "workspace invites"), "7 days",
     "an admin resends the invite"),
    (E("dashboard sessions", "web sessions", "login sessions"), "12 hours",
     "the dashboard logs the user out"),
    (E("sandbox API keys", "test-mode keys", "sandbox keys"), "90 days",
     "generate a new key under Developers"),
    (E("one-time 2FA codes", "2FA codes", "SMS codes"), "5 minutes",
     "request another code"),
)
METHODS = (
    E("card payments", "credit card charges", "card charges", "Visa and Mastercard payments"),
    E("SEPA Direct Debit", "SEPA debits", "SEPA payments"),
    E("ACH transfers", "ACH payments", "US bank debits"),
    E("PayPal payments", "PayPal", "PayPal charges"),
    E("Apple Pay payments", "Apple Pay", "wallet payments"),
    E("wire transfers", "bank wires", "invoice payments by wire"),
)
PRODUCTS = (
    E("annual plans", "yearly subscriptions", "annual subscriptions"),
    E("monthly plans", "monthly subscriptions", "month-to-month plans"),
    E("hardware card readers", "card readers", "the terminal hardware"),
    E("one-time setup fees", "setup fees", "onboarding fees"),
    E("extra seats", "additional seats", "seat add-ons"),
    E("usage overage charges", "overage fees", "API overages"),
)
REGIONS = (
    E("the EU", "Europe", "EU countries"), E("the UK", "Britain", "United Kingdom"),
    E("the US", "the United States", "the States"), E("Canada"), E("Australia"),
    E("Japan"),
)
CARRIERS = (
    E("DHL Express", "DHL"), E("UPS Standard", "UPS"), E("FedEx Ground", "FedEx"),
    E("Royal Mail Tracked 48", "Royal Mail"), E("USPS Priority", "USPS"),
    E("Canada Post Expedited", "Canada Post"), E("Australia Post", "AusPost"),
    E("Japan Post EMS", "EMS"),
)
EVENTS = (
    E("invoice.paid", "invoice-paid events", "paid-invoice webhooks"),
    E("charge.failed", "failed-charge events", "charge failure webhooks"),
    E("customer.deleted", "customer deletion events", "deleted-customer webhooks"),
    E("payout.sent", "payout events", "payout webhooks"),
    E("subscription.updated", "subscription update events", "plan change webhooks"),
    E("dispute.created", "dispute events", "chargeback webhooks"),
)
ISSUES = (
    E("chargeback disputes", "disputes", "chargebacks"),
    E("suspected account takeover", "account takeover reports", "hacked accounts"),
    E("double charges", "duplicate charges", "charged twice complaints"),
    E("API outages", "5xx errors from the API", "API downtime reports"),
    E("GDPR data requests", "data subject requests", "GDPR requests"),
    E("lost shipments", "missing parcels", "packages that never arrived"),
    E("enterprise contract questions", "contract questions", "custom pricing requests"),
)
TEAMS = (
    E("the Billing team", "Billing", "billing ops"), E("Security", "the security team", "SecOps"),
    E("Tier 2", "second-line support", "T2"), E("platform on-call", "the on-call engineer",
                                                  "the SRE on call"),
    E("the Privacy team", "Privacy", "the DPO"), E("Logistics", "the logistics team"),
    E("Account Management", "the account managers", "AMs"),
)
MEETINGS = (
    E("support standup", "daily standup", "standup"), E("weekly billing sync", "billing sync"),
    E("sprint retro", "retrospective", "retro"), E("all-hands", "company all-hands",
                                                   "town hall"),
    E("escalation review", "escalations review"), E("on-call handover", "handover meeting"),
)
ROOMS = ("Atlas", "Borealis", "the big room on 3", "Cedar", "Zoom", "the kitchen area")
IT_THINGS = (
    (E("VPN certificate", "VPN cert", "the VPN client certificate"), "90 days",
     "renew it from the IT portal before it expires"),
    (E("office Wi-Fi password", "Wi-Fi password", "guest Wi-Fi code"), "30 days",
     "the new one is posted in the IT channel"),
    (E("laptop OS updates", "laptop updates", "macOS updates"), "14 days",
     "install them or the device gets quarantined"),
    (E("badge access", "door badges", "building badges"), "365 days",
     "reception reissues them"),
    (E("password manager vault", "1Password vault", "shared vault"), "180 days",
     "rotate the shared credentials"),
    (E("Zendesk admin access", "admin access", "Zendesk admin rights"), "60 days",
     "re-request it from your lead"),
)
CATERING = (
    (E("Friday team lunch", "team lunch", "Friday lunch"), "Green Fork", "Wednesday"),
    (E("onboarding breakfast", "new-hire breakfast"), "Bagel Barn", "Monday"),
    (E("offsite dinner", "offsite catering"), "Luca's Trattoria", "the week before"),
    (E("all-hands snacks", "town hall snacks"), "the corner deli", "Tuesday"),
    (E("holiday party food", "holiday party catering"), "Spice Route", "two weeks ahead"),
)
ACCOUNT_OPS = (
    (E("account deletion", "deleting an account", "account closure"), "30 days",
     "it cannot be undone afterwards"),
    (E("data exports", "CSV exports", "account data downloads"), "48 hours",
     "the download link is emailed to the account owner"),
    (E("email address changes", "changing the login email", "email updates"), "24 hours",
     "both the old and the new address get a confirmation"),
    (E("ownership transfers", "transferring account ownership", "owner changes"), "5 days",
     "the current owner must approve it"),
    (E("2FA resets", "resetting two-factor", "2FA recovery"), "3 business days",
     "identity has to be verified with a photo ID"),
)


# -- subject spaces -----------------------------------------------------------------------
def _price_subjects() -> list[dict[str, Any]]:
    return [{"plan": plan, "price": price, "quota": quota, "disc": 10 + (_crc(plan.name) % 3) * 5}
            for plan, price, quota in PLANS]


def _rate_subjects() -> list[dict[str, Any]]:
    out = []
    for ep in ENDPOINTS:
        for unit, short in UNITS:
            h = _crc(ep.name, unit)
            n = {"second": (10, 25, 50, 100), "minute": (60, 100, 300, 600),
                 "hour": (1000, 5000, 10000, 20000)}[unit][h % 4]
            out.append({"endpoint": ep, "n": n, "unit": (unit, short), "wait": 1 + h % 30})
    return out


def _token_subjects() -> list[dict[str, Any]]:
    return [{"token": t, "ttl": ttl, "renew": renew} for t, ttl, renew in TOKENS]


def _retry_subjects() -> list[dict[str, Any]]:
    out = []
    for m in METHODS:
        h = _crc("retry", m.name)
        out.append({"method": m, "tries": 2 + h % 3, "days": (7, 10, 14, 21)[h % 4],
                    "after": ("the account drops to the free plan",
                              "the subscription is paused", "the workspace goes read-only")[h % 3]})
    return out


def _settle_subjects() -> list[dict[str, Any]]:
    out = []
    for m in METHODS:
        h = _crc("settle", m.name)
        out.append({"method": m, "settle": (1, 2, 3, 5)[h % 4],
                    "currencies": ("EUR only", "USD only", "EUR, GBP and USD",
                                   "30+ currencies")[h % 4]})
    return out


def _refund_subjects() -> list[dict[str, Any]]:
    out = []
    for p in PRODUCTS:
        h = _crc("refund", p.name)
        out.append({"product": p, "days": (7, 14, 30, 60)[h % 4],
                    "where": ("the billing dashboard", "the admin console",
                              "a ticket to Billing")[h % 3],
                    "partial": ("prorated", "full only", "manager approval needed")[h % 3]})
    return out


def _shipping_subjects() -> list[dict[str, Any]]:
    out = []
    for r in REGIONS:
        for c in CARRIERS:
            h = _crc(r.name, c.name)
            lo = 1 + h % 4
            out.append({"region": r, "carrier": c, "lo": lo, "hi": lo + 2 + h % 3,
                        "cutoff": ("noon", "2pm", "3pm", "11am")[h % 4]})
    return out


def _webhook_subjects() -> list[dict[str, Any]]:
    out = []
    for e in EVENTS:
        h = _crc("hook", e.name)
        out.append({"event": e, "hours": (24, 48, 72)[h % 3], "tolerance": (5, 10)[h % 2]})
    return out


def _escalation_subjects() -> list[dict[str, Any]]:
    out = []
    for i, issue in enumerate(ISSUES):
        for team in TEAMS:
            h = _crc(issue.name, team.name)
            if h % 3:  # not every pairing makes sense; keep a third of them
                continue
            out.append({"issue": issue, "team": team, "sla": (1, 4, 8, 24)[h % 4],
                        "cond": ("the customer is on Business or Enterprise",
                                 "the amount is over $500", "it is not solved in one reply",
                                 "more than one customer reports it")[(h >> 3) % 4]})
    return out


def _account_subjects() -> list[dict[str, Any]]:
    return [{"op": op, "when": when, "note": note} for op, when, note in ACCOUNT_OPS]


def _meeting_subjects() -> list[dict[str, Any]]:
    out = []
    for m in MEETINGS:
        h = _crc("meet", m.name)
        out.append({"meeting": m, "day": ("Monday", "Tuesday", "Wednesday", "Thursday",
                                          "Friday", "Thursday")[h % 6],
                    "time": ("9:15", "10:00", "11:30", "14:00", "16:30")[h % 5],
                    "room": ROOMS[(h >> 4) % len(ROOMS)]})
    return out


def _it_subjects() -> list[dict[str, Any]]:
    return [{"thing": t, "every": every, "how": how} for t, every, how in IT_THINGS]


def _catering_subjects() -> list[dict[str, Any]]:
    return [{"meal": m, "vendor": v, "by": by} for m, v, by in CATERING]


# -- families -----------------------------------------------------------------------------
FAMILIES: tuple[Family, ...] = (
    Family(
        "plan_price", "price",
        "The {plan} costs ${price} per month and includes {quota}; annual billing saves "
        "{disc}%.",
        (
            ("the {plan} costs ${price} [per month|a month|/mo]", "{plan}: ${price}/month",
             "[customers|people] on the {plan} pay ${price} monthly",
             "quote ${price} a month for the {plan}", "{plan} pricing is ${price} per month"),
            ("it includes {quota}", "{quota} [are|come] included",
             "the {plan} comes with {quota}", "what you get: {quota}"),
            ("annual billing [saves|knocks off] {disc}%", "yearly payment gets {disc}% off",
             "[paying|billed] annually [is|comes out] {disc}% cheaper"),
        ),
        _price_subjects, ("plan",),
        ("[a customer|the customer] on ticket #{ticket} asked about it",
         "confirmed on the public pricing page"),
    ),
    Family(
        "rate_limit", "reference",
        "{endpoint} is limited to {n} requests per {unit} per API key; over the limit it "
        "returns HTTP 429 with a Retry-After of about {wait} seconds.",
        (
            ("{endpoint} is limited to {n} requests per {unit}",
             "the rate limit on {endpoint} is {n}/{unit}",
             "{endpoint} allows {n} [calls|requests] [per|a|every] {unit} per key",
             "[don't|never] send more than {n} requests per {unit} to {endpoint}"),
            ("[over|past|above] the limit [it|the API] returns [HTTP 429|a 429|429 Too Many Requests]",
             "[clients|integrations] that exceed it get 429 errors",
             "hitting the cap [gives|returns] a 429"),
            ("wait for the Retry-After header, usually about {wait} seconds",
             "back off [exponentially|with jitter] and honour Retry-After",
             "tell developers to batch [requests|calls] instead of retrying in a loop"),
        ),
        _rate_subjects, ("endpoint", "unit"),
        ("a developer on ticket #{ticket} hit this during a migration",
         "[limits|the limit] [is|are] per API key, not per account"),
    ),
    Family(
        "token_ttl", "reference",
        "{token} expire after {ttl}; after that {renew}.",
        (
            ("{token} expire after {ttl}", "{token} are valid for {ttl}",
             "the lifetime of {token} is {ttl}", "{token} [only ]last {ttl}"),
            ("after that {renew}", "once expired, {renew}", "when it runs out, {renew}",
             "fix for expired ones: {renew}"),
            ("[users|customers] often [write in|open tickets] thinking [it's|this is] a bug",
             "the error [they see ]is 401 invalid_token", "don't [extend|change] this manually"),
        ),
        _token_subjects, ("token",),
        ("[security|Security] set this [last quarter|in the spring]",),
    ),
    Family(
        "payment_retry", "default",
        "Failed {method} are retried {tries} times over {days} days; after the last failure "
        "{after}.",
        (
            ("failed {method} are retried {tries} times", "we retry {method} {tries} times",
             "{method} that fail get {tries} automatic retries",
             "[for|with] {method}, failures are retried {tries} times"),
            ("the retries [are spread|run] over {days} days", "retry window: {days} days",
             "the last retry is on day {days}"),
            ("after the last failure {after}", "if all retries fail, {after}",
             "when retries run out {after}"),
        ),
        _retry_subjects, ("method",),
        ("[a customer|the merchant] on ticket #{ticket} asked why they were charged again",),
    ),
    Family(
        "settlement", "default",
        "{method} settle in {settle} business days and are supported in {currencies}.",
        (
            ("{method} settle in {settle} business days",
             "funds from {method} arrive after {settle} business days",
             "settlement time for {method} is {settle} days", "{method}: T+{settle}"),
            ("{method} [are supported|work] in {currencies}", "currencies: {currencies}",
             "[only ]{currencies} [for|with] {method}"),
        ),
        _settle_subjects, ("method",),
        ("payouts follow the settlement date", "weekends and bank holidays don't count"),
    ),
    Family(
        "refund", "default",
        "{product} can be refunded within {days} days of purchase from {where}; refunds are "
        "{partial}.",
        (
            ("{product} can be refunded within {days} days",
             "refund window for {product}: {days} days",
             "customers [get|have] {days} days to ask for a refund on {product}",
             "{product} are refundable [for|up to] {days} days after purchase"),
            ("issue [the refund|it] from {where}", "refunds [go through|are done in] {where}",
             "use {where} to refund"),
            ("refunds are {partial}", "partial refunds: {partial}",
             "for {product} the rule is {partial}"),
        ),
        _refund_subjects, ("product",),
        ("the money takes 5-10 business days to reach the card", "ticket #{ticket} was one"),
    ),
    Family(
        "shipping", "availability",
        "Orders to {region} ship with {carrier} and arrive in {lo}-{hi} business days; orders "
        "placed before {cutoff} leave the same day.",
        (
            ("orders to {region} ship with {carrier}", "{carrier} handles {region} orders",
             "we use {carrier} for {region}", "shipments to {region} go out via {carrier}"),
            ("[delivery|transit] takes {lo}-{hi} business days", "arrival in {lo} to {hi} days",
             "expect {lo}-{hi} working days [to arrive|for delivery]"),
            ("orders before {cutoff} [leave|ship] the same day",
             "the same-day cutoff is {cutoff}", "after {cutoff} it ships next business day"),
        ),
        _shipping_subjects, ("region", "carrier"),
        ("tracking shows up once the label is scanned",
         "customs can add a couple of days"),
    ),
    Family(
        "webhook", "reference",
        "{event} webhooks are retried for up to {hours} hours with exponential backoff; verify "
        "the signature and reject events older than {tolerance} minutes.",
        (
            ("{event} webhooks are retried for up to {hours} hours",
             "we keep retrying {event} deliveries for {hours}h",
             "undelivered {event} [events|webhooks] [are retried|retry] for {hours} hours"),
            ("verify the [signature|HMAC signature] [first|on every event]",
             "check the signature header [before trusting|before processing] the payload",
             "[unsigned|badly signed] events must be rejected"),
            ("reject events older than {tolerance} minutes",
             "the timestamp tolerance is {tolerance} minutes",
             "events can arrive out of order, so use the created timestamp"),
        ),
        _webhook_subjects, ("event",),
        ("[a developer|an integrator] on ticket #{ticket} got duplicates",),
    ),
    Family(
        "escalation", "default",
        "Escalate {issue} to {team} when {cond}; they answer within {sla} hours.",
        (
            ("escalate {issue} to {team}", "{issue} go to {team}",
             "route {issue} [straight ]to {team}", "{team} owns {issue}"),
            ("[only ]when {cond}", "the trigger is that {cond}", "[do it|escalate] if {cond}"),
            ("they answer within {sla} hours", "their SLA is {sla}h",
             "expect a reply [in|within] {sla} hours"),
        ),
        _escalation_subjects, ("issue", "team"),
        ("[it was agreed|we agreed this] in the escalation review",),
    ),
    Family(
        "account_op", "default",
        "Allow up to {when} for {op}; {note}.",
        (
            ("{op}: [allow|expect] up to {when}", "processing time for {op} is {when}",
             "[plan|allow] {when} for {op}", "{op} [can take|may take] up to {when}"),
            ("{note}", "[keep in mind|note that] {note}", "tell the customer {note}"),
        ),
        _account_subjects, ("op",),
        ("ticket #{ticket} was about this",),
    ),
    Family(
        "meeting", "schedule",
        "The {meeting} is on {day} at {time} in {room}.",
        (
            ("the {meeting} is [on|every] {day}", "{meeting}: {day}",
             "{meeting} happens {day}", "we hold the {meeting} on {day}"),
            ("it starts at {time}", "[start time|time] is {time}", "{time} sharp"),
            ("it's in {room}", "room: {room}", "[we meet|it's held] in {room}"),
        ),
        _meeting_subjects, ("meeting",),
        ("[cameras|camera] on, please", "the agenda is in the shared doc"),
    ),
    Family(
        "it", "reference",
        "The {thing} must be renewed every {every}; {how}.",
        (
            ("the {thing} [expires|must be renewed] every {every}",
             "{thing} [runs out|lapses] after {every}", "{thing}: renew every {every}"),
            ("{how}", "to fix it, {how}", "IT says {how}"),
        ),
        _it_subjects, ("thing",),
        ("[mine|my] expired during a customer call once", "IT sends a reminder a week before"),
    ),
    Family(
        "catering", "schedule",
        "Food for the {meal} is ordered from {vendor}; dietary requests are due by {by}.",
        (
            ("the {meal} is [ordered|catered] from {vendor}", "{vendor} does the {meal}",
             "we order the {meal} from {vendor}"),
            ("dietary requests are due by {by}", "send allergies [and preferences ]by {by}",
             "[vegan and gluten-free|special] orders need to be in by {by}"),
        ),
        _catering_subjects, ("meal",),
        ("the office manager collects the orders",),
    ),
)

STYLE = Style(
    hedges=("I believe", "As far as I know,", "Per the docs,", "FYI", "Heads up:",
            "Confirmed with {colleague}:", "If I remember correctly,", "According to {colleague},",
            "Customer-facing answer:", "Internally,"),
    contexts=("from ticket #{ticket}", "after the {month} release", "per the help-center article",
              "as {colleague} explained in Slack", "during the {month} billing incident",
              "in the onboarding call", "from the API changelog",
              "when a customer asked on chat", "in last week's support sync"),
    framings=("Note: {b}", "Reminder: {b}", "KB: {b}", "{b} (saved from a ticket)",
              "Macro text: {b}", "Remember that {b}", "{b}. Keep this in answers",
              "Internal note - {b}"),
    specifics=("ticket #{ticket} was about exactly this", "{colleague} confirmed it in Slack",
               "came up {count} times this week", "it's in the {month} changelog"),
    anecdotes=("Ticket #{ticket} from a customer in {city}", "On chat with a merchant from {city}",
               "{colleague} asked me in Slack", "During the {month} incident review"),
    fillers={
        "ticket": tuple(str(n) for n in (48213, 50190, 51877, 52004, 53316, 54442, 55019, 56781)),
        "colleague": ("Dana", "Luis", "Mei", "Tom", "Aisha", "Piotr", "Grace", "Ravi"),
        "month": ("March", "April", "May", "June", "September", "October", "November"),
        "city": ("Lisbon", "Austin", "Leeds", "Osaka", "Toronto", "Melbourne", "Berlin"),
        "count": ("three", "four", "five", "a few", "several"),
    },
)

NOISE = (
    "The printer on the {floor} floor is jammed again",
    "{colleague}'s farewell drinks are on {day} at {time}",
    "The coffee machine in the {room} kitchen is broken",
    "Fire drill on {day} at {time}",
    "Lost and found has a {item} from the {room} room",
    "Book {room} for the {team} offsite",
    "Plant watering rota: {colleague} this week",
    "Parking permits must be collected from reception by {day}",
    "{colleague} is out of office until {day}",
    "The lift on the {floor} floor is under maintenance",
    "Bring a {item} for the charity raffle on {day}",
    "Cake in the kitchen for {colleague}'s birthday",
    "The {room} room projector needs a new HDMI cable",
    "{colleague} recommends the ramen place on {street}",
    "Remember to submit expenses before {day}",
    "The office closes early on {day} for the building inspection",
    "Desk bookings for {day} open at {time}",
    "Someone left a {item} in {room}",
    "The quarterly photo is on {day}, wear the company T-shirt",
    "Bike racks are moving to the {floor} floor garage",
)
NOISE_FILLERS = {
    **STYLE.fillers,
    "floor": ("2nd", "3rd", "4th", "5th", "ground"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "time": ("9:00", "12:30", "15:00", "16:00", "17:30"),
    "room": ROOMS[:4] + ("Delta", "Echo"),
    "item": ("umbrella", "water bottle", "scarf", "charger", "notebook", "mug"),
    "team": ("support", "billing", "platform", "sales", "design"),
    "street": ("King Street", "Mill Lane", "Harbour Road", "Elm Avenue"),
}

VOCABULARY = Vocabulary("support", FAMILIES, STYLE, NOISE, NOISE_FILLERS)
