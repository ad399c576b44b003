"""A generated dev set of outcome scenarios, with held-apart validation and sealed parts.

Wider than :mod:`memmaint.datasets.outcome_scenarios` (written pairs): here the scenarios are
instantiated from templates and seeds, so the set is reproducible and can grow. Two kinds:

- **advice needs**: a query, advice that worked (``good``) and advice that failed (``bad``)
  whose text echoes the query's own words, so the query favours the bad advice (the trap of a
  similarity-only retriever). The templates vary how much the bad advice echoes the query and
  how much the two advices share, to cover a good/bad cosine of about 0.2-0.7 and query gaps
  up to about 0.6 (measured, not assumed: ``memmaint eval outcomes`` prints both).
- **stale-only topics**: a query whose only answers are stale (an expired or ``STALE_WARN``
  price or availability note) plus a *loosely related* fresh note of the same domain
  (a real memory on a neighbouring subject), where the right answer is ``REFUSE``. Each
  topic has a control twin in which a fresh answer exists and must be served.

Every seed gives one shared namespace holding all needs and topics of its part (several
needs, several domains, one pool), so proven advice of one need is a distractor for every
other query. The ``dev`` part (tuning) and the ``validation`` part use *different domains and
templates*, not just other seeds; choices are made on ``dev`` only. ``validation`` was run after
many changes, so it is no longer truly held apart; the ``sealed`` part (photography, car, tax,
pets, a CI pipeline, a mobile app's support desk; 16 needs and 6 stale-only topics per seed) was
written before any run, to be run once per mode and never tuned on (docs/evaluation.md). Once
``sealed`` had been read, the ``withheld`` part (bicycle repair, home insurance, music
production, an HR desk; same sizes) was written the same way, in
:mod:`memmaint.datasets.outcome_withheld`. Once ``withheld`` had been read, the ``reserve``
part (a school's parent portal, a phone carrier's support desk, a woodworking workshop, an
online shop's seller support; same sizes) was written before any run of its own, in
:mod:`memmaint.datasets.outcome_reserve`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from memmaint.datasets import outcome_reserve as reserve
from memmaint.datasets import outcome_withheld as withheld
from memmaint.datasets.outcome_scenarios import Advice, OutcomeScenario
from memmaint.maintenance.core.records import Memory

PARTS = ("dev", "validation", "sealed", "withheld", "reserve")
SEEDS = (0, 1)

# (domain, query, good, bad); {a} and {b} are filled per seed from the domain's slot list.
# The bad advice restates the query; the good advice says what works in other words.
_NEEDS: dict[str, list[tuple[str, str, str, str]]] = {
    "dev": [
        ("deploys", "How do I roll back a broken {a} deploy?",
         "Redeploy the previous release tag of {a} from the pipeline; it takes two minutes.",
         "To roll back a broken {a} deploy, edit the files on the production host by hand."),
        ("deploys", "Why does the {a} build fail on the CI runner?",
         "The CI runner image lacks the {b} toolchain; pin the image version in the workflow.",
         ("The {a} build fails on the CI runner because CI is flaky; rerun the build until "
         "it passes.")),
        ("deploys", "How should I rotate the {a} database password?",
         "Create a second credential, switch the {a} service to it, then revoke the old one.",
         "Rotate the {a} database password by changing the password in place during the day."),
        ("deploys", "What do I do when {a} runs out of disk?",
         "Old container images fill the {a} volume; prune them with the weekly cleanup job.",
         "When {a} runs out of disk, delete the log folder of {a} and restart it."),
        ("billing", "A customer was charged twice for {a}, what do I do?",
         "Refund the duplicate from the payments console and tag the ticket {b}.",
         ("When a customer was charged twice for {a}, tell them the second charge will "
         "disappear.")),
        ("billing", "How do I change the billing email on a {a} account?",
         "Owners edit it under Settings, Organisation; support cannot change it for them.",
         "To change the billing email on a {a} account, ask support to update the email."),
        ("billing", "Can a {a} customer get an invoice in euros?",
         "Invoices follow the currency of the contract; sales must amend the contract first.",
         "Yes, a {a} customer can get an invoice in euros by asking for a euro invoice."),
        ("billing", "What happens when a {a} card payment is declined?",
         "A declined card is retried three times over a week, then the workspace becomes read-only.",
         "When a {a} card payment is declined, the account is deleted straight away."),
        ("kitchen", "How long should I rest a {a} after roasting?",
         "Cover it loosely with foil for a third of the cooking time before carving.",
         "Rest a {a} after roasting for one minute, then slice the roast {a} at once."),
        ("kitchen", "Why is my {a} dough not rising?",
         "The yeast was probably killed by hot water; proof it in lukewarm water next time.",
         "Your {a} dough is not rising because it needs more flour; add flour to the dough."),
        ("kitchen", "How do I stop {a} sticking to the pan?",
         "Heat the pan until a drop of water dances, then add oil and wait before turning the {a}.",
         "To stop {a} sticking to the pan, keep moving the {a} around the cold pan."),
        ("kitchen", "How do I keep cut {a} from browning?",
         "A squeeze of lemon juice on the {a} and an airtight box slow the oxidation for a day.",
         "Keep cut {a} from browning by leaving the cut {a} out in the open air."),
        ("travel", "Do I need a visa to visit {a} for a week?",
         "Check the {a} embassy page for your passport; visa rules change and airlines verify them.",
         "You never need a visa to visit {a} for a week; a visa for {a} is only for work."),
        ("travel", "What should I do if my bag is lost on the flight to {a}?",
         "File a property irregularity report at the airline desk before leaving the airport.",
         "If your bag is lost on the flight to {a}, just wait at home for the bag to show up."),
        ("travel", "How early should I get to the airport in {a}?",
         "Security queues there can take an hour at peak; plan on three hours before take-off.",
         "Get to the airport in {a} early, about thirty minutes early is enough."),
        ("travel", "Can I use my phone plan in {a}?",
         "Buy a local eSIM on arrival in {a}; roaming charges per megabyte are steep there.",
         "Yes, you can use your phone plan in {a}; your phone plan works the same in {a}."),
    ],
    "validation": [
        ("garden", "Why are the leaves on my {a} turning yellow?",
         "Overwatering drowns the roots; let the soil dry between waterings.",
         "The leaves on your {a} are turning yellow because the {a} needs more water."),
        ("garden", "When should I prune my {a}?",
         "Cut it back in late winter while it is dormant, above an outward-facing bud.",
         "Prune your {a} whenever it looks untidy, pruning the {a} in full summer is best."),
        ("garden", "How do I get rid of aphids on {a}?",
         "Spray them off with water and let ladybirds do the rest; avoid broad insecticide.",
         "To get rid of aphids on {a}, spray the {a} with dish soap and bleach."),
        ("garden", "How deep should I plant {a} bulbs?",
         "About three times the height of the bulb, pointed end up, in well-drained soil.",
         "Plant {a} bulbs deep, as deep as you can dig, so the {a} bulbs stay warm."),
        ("network", "Why can't my laptop connect to the {a} wifi?",
         "The access point only offers WPA3; update the laptop's wireless driver.",
         ("Your laptop can't connect to the {a} wifi because the {a} wifi password is wrong; "
         "reset it.")),
        ("network", "How do I open a port for {a} on the router?",
         "Add a port-forwarding rule to the host's fixed address and allow it in the firewall.",
         "To open a port for {a} on the router, turn off the router firewall for {a}."),
        ("network", "Why is the {a} VPN so slow?",
         "Traffic goes through the far gateway; pick the nearest region in the client.",
         "The {a} VPN is slow because VPNs are slow; the {a} VPN cannot be faster."),
        ("network", "How do I find which device is using the {a} bandwidth?",
         "The router's traffic monitor lists clients by bytes; sort it by the last hour.",
         "To find which device is using the {a} bandwidth, unplug each device on the {a}."),
        ("fitness", "How do I stop my knees hurting when I {a}?",
         "Strengthen the hips and glutes twice a week and raise your step cadence.",
         "To stop your knees hurting when you {a}, {a} through the pain until it fades."),
        ("fitness", "How often should I {a} to build stamina?",
         "Three sessions a week with a rest day between them; add ten percent a week.",
         "To build stamina, {a} every day as hard as you can, as often as you can {a}."),
        ("fitness", "What should I eat before I {a} in the morning?",
         "A banana or toast an hour before gives quick carbohydrate without a heavy stomach.",
         "Before you {a} in the morning, eat nothing; {a} on an empty stomach is best."),
        ("fitness", "How do I avoid cramps when I {a}?",
         "Drink with electrolytes during long sessions and warm up for ten minutes.",
         "To avoid cramps when you {a}, stretch hard right before you {a} and skip water."),
        ("housing", "The {a} in my flat is leaking, what do I do?",
         "Shut the isolation valve under it and report it to the landlord in writing.",
         "If the {a} in your flat is leaking, fix the {a} yourself with tape and wait."),
        ("housing", "Can my landlord raise the rent on my {a} lease mid-term?",
         "Only if the contract has a review clause; otherwise the rent is fixed until renewal.",
         "Yes, your landlord can raise the rent on your {a} lease mid-term whenever they like."),
        ("housing", "How do I get my {a} deposit back?",
         "Photograph every room at move-out and ask for the protection scheme's reference.",
         "To get your {a} deposit back, just ask for the {a} deposit back after you leave."),
        ("housing", "What do I do about mould in the {a}?",
         "Open windows after showers and run the extractor; it is condensation, not damp.",
         "For mould in the {a}, paint over the mould in the {a} with ordinary paint."),
    ],
    "sealed": [
        ("photography", "Why are my {a} photos blurry indoors?",
         "In dim rooms the shutter drops below 1/60 s; raise the ISO or open the aperture wider.",
         ("Your {a} photos are blurry indoors because the lens is dirty; wipe the {a} lens "
          "with your shirt.")),
        ("photography", "How do I stop the sky turning white in my {a} landscape shots?",
         ("Expose for the bright sky, or bracket three exposures and merge them; a graduated "
          "filter also holds the highlights."),
         ("To stop the sky turning white in {a} landscape shots, brighten the whole landscape "
          "shot later in the editor.")),
        ("photography", "How do I back up the photos from my {a} after a trip?",
         ("Copy the card to two separate drives, one kept away from home, before you format "
          "the card in the {a}."),
         ("Leave the photos on the {a} memory card and back up the photos from the {a} when "
          "the card is full.")),
        ("car", "How often should I change the oil in my {a}?",
         ("Change the oil at the interval in the {a} handbook, usually every 15,000 km or "
          "once a year, whichever comes first."),
         ("Change the oil in your {a} every 1,000 km; changing the oil in a {a} more often "
          "is always better.")),
        ("car", "What does the orange engine light on my {a} mean?",
         ("A steady amber warning is a stored fault code, not an emergency; have the code read "
          "with an OBD scanner this week."),
         ("The orange engine light on your {a} means nothing; cover the engine light on the "
          "dashboard and keep driving.")),
        ("car", "Why does my {a} battery keep going flat overnight?",
         ("Something draws current while the car is off, often a boot lamp or a dashcam; a "
          "garage can run a parasitic drain test."),
         ("Your {a} battery keeps going flat overnight because of the cold; jump-start the {a} "
          "battery every morning.")),
        ("tax", "Can I deduct my home office on my {a} tax return?",
         ("Only a room used solely for work counts; claim its share of rent or mortgage "
          "interest and keep a floor plan."),
         ("Yes, you can deduct your whole home as a home office on your {a} tax return, "
          "whatever the home office is used for.")),
        ("tax", "What happens if I file my {a} return late?",
         ("A penalty accrues for each month past the deadline; file as soon as you can and ask "
          "for an instalment plan if you cannot pay."),
         ("Nothing happens if you file your {a} return late; a late {a} return is accepted "
          "without any penalty.")),
        ("tax", "Which receipts do I need to keep for my {a} return?",
         ("Keep every receipt for your {a} return for six years, with invoices, bank statements "
          "and mileage logs; scans are fine."),
         ("You only need to keep the receipts over 100 for your {a} return; throw the other "
          "receipts away after a year.")),
        ("pets", "How much should I feed my {a}?",
         ("Weigh each portion and follow the pack's amount for your {a}'s target weight, split "
          "into two meals; adjust if the ribs are hard to feel."),
         "Feed your {a} as much as it wants; a {a} knows how much it should eat."),
        ("pets", "Why does my {a} scratch all the time?",
         ("Constant itching is most often fleas; treat every animal in the house monthly and "
          "wash the bedding hot."),
         ("Your {a} scratches all the time because it is bored; ignore the scratching and the "
          "{a} will stop.")),
        ("pets", "Is it safe to give my {a} chocolate as a treat?",
         ("No: theobromine in cocoa is toxic to them even in small amounts; ring the vet if "
          "any was eaten."),
         ("Yes, it is safe to give your {a} chocolate as a treat, a small piece of chocolate "
          "now and then.")),
        ("ci", "Why does the {a} pipeline take forty minutes?",
         ("Every job downloads its dependencies again; cache the package directory keyed on "
          "the lock file."),
         ("The {a} pipeline takes forty minutes because pipelines are slow; buy bigger "
          "machines for the {a} pipeline.")),
        ("ci", "A test in the {a} pipeline fails one run in ten, what do I do?",
         ("Quarantine the flaky test, open a ticket with its seed and logs, and remove the "
          "shared state it depends on."),
         ("When a test in the {a} pipeline fails one run in ten, make the {a} pipeline retry "
          "failed tests until they pass.")),
        ("appdesk", "A user says the {a} app crashes on launch, what do I tell them?",
         ("Ask for the app version and phone model, then have them update from the store; "
          "version 4.2 fixed the startup crash."),
         ("Tell the user the {a} app crashes on launch because their phone is too old; the "
          "{a} app cannot run on it.")),
        ("appdesk", "How does a user reset their {a} password after losing access to their email?",
         ("Verify identity with the last four digits of the card on file; an agent can then "
          "change the login address in the admin panel."),
         ("A user resets their {a} password by tapping reset password and following the link "
          "sent to their email.")),
    ],
    "withheld": withheld.NEEDS,
    "reserve": reserve.NEEDS,
}

# How each need was asked before (the serve history behind the advices' outcomes): two
# other wordings per need, aligned with _NEEDS; the evaluated query is never one of them.
_ASKED: dict[str, list[tuple[str, str]]] = {
    "dev": [
        ("The {a} release is broken, how do I go back to the last one?",
         "Undo a bad {a} release"),
        ("{a} CI build keeps failing, what is wrong?",
         "The pipeline cannot build {a}, why?"),
        ("Steps to change the {a} DB credentials",
         "How do we swap the password of the {a} database safely?"),
        ("The {a} disk is full, how do I free space?",
         "{a} volume at 100 percent usage"),
        ("Customer billed two times for {a}",
         "Duplicate {a} payment on a card, how to fix it?"),
        ("Where is the invoice email of a {a} account changed?",
         "Update the address {a} invoices are sent to"),
        ("Invoice a {a} customer in EUR instead of dollars?",
         "Which currency are {a} invoices issued in?"),
        ("The card of a {a} customer was refused, what now?",
         "{a} payment failed on the card"),
        ("How many minutes should a roast {a} sit before carving?",
         "Resting time for {a} out of the oven"),
        ("My {a} dough stays flat",
         "The {a} dough did not rise overnight, why?"),
        ("The {a} keeps sticking to my frying pan",
         "How to fry {a} without it glueing to the pan?"),
        ("Sliced {a} goes brown quickly, how to prevent it?",
         "Keep {a} slices looking fresh"),
        ("Is a visa required for a short trip to {a}?",
         "One week holiday in {a}, do I need a visa?"),
        ("The airline lost my suitcase on the way to {a}",
         "Missing luggage after landing in {a}"),
        ("When to arrive at the {a} airport before my flight?",
         "How much time do I need at the airport in {a}?"),
        ("Will my mobile plan work in {a}?",
         "Roaming with my phone in {a}"),
    ],
    "validation": [
        ("My {a} has yellow leaves, why?",
         "Yellowing leaves on the {a}"),
        ("What time of year do I cut back the {a}?",
         "Best season to prune a {a}"),
        ("The {a} is covered in aphids",
         "Greenfly on my {a}, how to treat it?"),
        ("Planting depth for {a} bulbs",
         "How far down do {a} bulbs go in the ground?"),
        ("The laptop will not join the {a} wireless network",
         "Cannot get on the {a} wifi from my laptop"),
        ("Port forwarding for {a} on my router",
         "Make {a} reachable from outside through the router"),
        ("The {a} VPN connection is very slow",
         "How to speed up the {a} VPN?"),
        ("Which device eats all the {a} bandwidth?",
         "Find what is hogging the {a} network"),
        ("My knees hurt every time I {a}",
         "Knee pain when I {a}, what helps?"),
        ("How many times a week should I {a} for endurance?",
         "Training plan to {a} longer"),
        ("Breakfast before a morning {a}?",
         "What to eat before I {a} early?"),
        ("I get cramps when I {a}",
         "Muscle cramps every time I {a}, how to prevent them?"),
        ("Water leaking from the {a} in the flat",
         "The {a} is dripping in my apartment, what should I do?"),
        ("Is a rent increase on my {a} lease allowed before it ends?",
         "Landlord wants more rent for the {a} mid-contract"),
        ("Getting the {a} deposit returned",
         "Landlord will not return the {a} deposit"),
        ("Black mould is growing in the {a}",
         "How do I deal with damp and mould in my {a}?"),
    ],
    "sealed": [
        ("Indoor shots from the {a} come out soft",
         "Everything is smeared in my {a} pictures taken inside"),
        ("Blown-out skies in {a} photos of mountains",
         "The {a} loses all detail in the clouds"),
        ("Safest way to keep {a} pictures from a holiday",
         "Where should I copy the {a} memory card?"),
        ("Oil change interval for a {a}",
         "How many kilometres between {a} oil services?"),
        ("The check-engine lamp came on in the {a}",
         "{a} dashboard shows an amber engine symbol"),
        ("The {a} will not start in the morning, dead battery again",
         "What keeps draining the {a} battery at night?"),
        ("Home office deduction on a {a} return",
         "Working from home, can the study go on my {a} tax form?"),
        ("I missed the {a} filing deadline",
         "Penalty for a {a} tax return handed in after the deadline"),
        ("How long must I keep paperwork for a {a} return?",
         "Records to hold on to for the {a} tax"),
        ("Right portion size for a {a}",
         "How many grams of food does a {a} need a day?"),
        ("My {a} keeps itching and biting its fur",
         "Constant scratching {a}, what is causing it?"),
        ("Can a {a} eat a bit of chocolate?",
         "My {a} wants some of my chocolate bar, is that OK?"),
        ("The {a} CI run is painfully slow",
         "Speed up the {a} build pipeline"),
        ("Flaky test in the {a} CI",
         "A {a} test passes locally but sometimes fails in CI"),
        ("Customer reports the {a} app closes as soon as it opens",
         "{a} app will not start on a user's phone"),
        ("{a} user locked out, no access to the old email",
         "Password reset for a {a} account whose email is gone"),
    ],
    "withheld": withheld.ASKED,
    "reserve": reserve.ASKED,
}

_SLOTS: dict[str, list[tuple[str, str]]] = {
    "deploys": [("checkout-api", "rust"), ("search-indexer", "java")],
    "billing": [("Team plan", "dup-charge"), ("Enterprise", "double-billed")],
    "kitchen": [("chicken", ""), ("pizza", "")],
    "travel": [("Japan", ""), ("Brazil", "")],
    "garden": [("tomato plant", ""), ("rose bush", "")],
    "network": [("office", ""), ("guest", "")],
    "fitness": [("run", ""), ("cycle", "")],
    "housing": [("boiler", ""), ("studio", "")],
    "photography": [("mirrorless camera", ""), ("old DSLR", "")],
    "car": [("hatchback", ""), ("diesel van", "")],
    "tax": [("freelance", ""), ("self-assessment", "")],
    "pets": [("dog", ""), ("cat", "")],
    "ci": [("ledger-service", ""), ("docs-site", "")],
    "appdesk": [("Pocketly", ""), ("Trailmark", "")],
    **withheld.SLOTS,
    **reserve.SLOTS,
}

# Stale-only topics: (domain, kind, query, stale answer, fresh answer, loosely related note).
_TOPICS: dict[str, list[tuple[str, str, str, str, str, str]]] = {
    "dev": [
        ("billing", "price", "How much does the {a} cost per month?",
         "The {a} costs $29 per month.", "The {a} costs $39 per month since the update.",
         "Customers on the {a} often ask support about seat limits."),
        ("travel", "availability", "Are there seats left on the morning train to {a}?",
         "The morning train to {a} has seats left.", "The morning train to {a} is sold out.",
         "Trains in {a} are known for running on time."),
        ("kitchen", "price", "What does a {a} cost at the market?",
         "A {a} costs 6 euros at the market.", "A {a} costs 8 euros at the market now.",
         "The market is open on Saturday mornings."),
        ("deploys", "schedule", "When is the {a} maintenance window?",
         "The {a} maintenance window is Tuesday at 02:00 UTC.",
         "The {a} maintenance window moved to Thursday at 03:00 UTC.",
         "The {a} team writes a postmortem after every incident."),
    ],
    "validation": [
        ("garden", "price", "How much is a bag of compost for the {a}?",
         "A bag of compost costs 5 pounds.", "A bag of compost costs 7 pounds this season.",
         "The {a} does well in a sunny corner of the garden."),
        ("network", "availability", "Is the {a} router in stock?",
         "The {a} router is in stock at the shop.", "The {a} router is out of stock.",
         "Routers need a firmware update every few months."),
        ("fitness", "schedule", "When is the next group {a} session?",
         "The group {a} session is on Monday at 18:00.",
         "The group {a} session moved to Wednesday at 19:00.",
         "Group sessions are a good way to stay motivated."),
        ("housing", "price", "What is the monthly rent for the {a}?",
         "The rent for the {a} is 900 pounds a month.",
         "The rent for the {a} is 950 pounds a month from May.",
         "The {a} is close to the station and the park."),
    ],
    "sealed": [
        ("car", "price", "How much does a full service for the {a} cost at the garage?",
         "A full service for the {a} costs 240 euros at the garage.",
         "A full service for the {a} costs 285 euros at the garage since March.",
         "The garage also fits winter tyres on the {a}."),
        ("photography", "availability", "Can I rent the 35mm lens for the {a} this weekend?",
         "The 35mm lens for the {a} is free to rent this weekend.",
         "The 35mm lens for the {a} is booked out this weekend.",
         "The rental shop cleans every lens before lending it."),
        ("tax", "schedule", "When is the {a} tax return due?",
         "The {a} tax return is due on 31 January.",
         "The {a} tax return deadline moved to 28 February this year.",
         "An accountant can file the {a} return on your behalf."),
        ("pets", "price", "How much does the vet charge for a {a} vaccination?",
         "A {a} vaccination costs 45 euros at the vet.",
         "A {a} vaccination costs 52 euros at the vet from this month.",
         "The vet clinic stays open late on Thursdays."),
        ("ci", "schedule", "At what time does the {a} nightly build run?",
         "The {a} nightly build runs at 01:00.",
         "The {a} nightly build runs at 04:30 since the runners moved.",
         "The {a} pipeline posts its results in the team chat."),
        ("appdesk", "price", "How much is the premium plan in the {a} app?",
         "The premium plan in the {a} app is 4.99 a month.",
         "The premium plan in the {a} app is 6.99 a month after the price change.",
         "Premium users of the {a} app get an ad-free feed."),
    ],
    "withheld": withheld.TOPICS,
    "reserve": reserve.TOPICS,
}

# Histories (successes, failures): good advice is proven, bad advice has failed.
_GOOD = [(5, 0), (3, 0), (8, 1), (2, 0), (12, 2), (1, 0)]
_BAD = [(0, 1), (0, 2), (1, 3), (0, 1), (0, 4)]


@dataclass(frozen=True)
class StaleTopic:
    """A question whose only answer is stale, in a namespace with a loosely related fresh note.

    ``memories(now, control=False)`` gives the stale answer (expired for ``seed`` even,
    ``STALE_WARN`` for odd) and the loosely related note; ``control=True`` adds a fresh answer,
    which must then be served.
    """

    id: str
    domain: str
    kind: str
    query: str
    stale: str
    fresh: str
    loose: str
    expired: bool

    def memories(self, now: datetime, namespace: str, control: bool = False) -> list[Memory]:
        ttl = {"price": 3.0, "availability": 7.0, "schedule": 30.0}[self.kind]
        age = ttl * (1.5 if self.expired else 0.7)
        out = [Memory(text=self.stale, id=f"{self.id}-stale", namespace=namespace,
                      kind=self.kind, created_at=now - timedelta(days=age),
                      metadata={"scenario": self.id, "role": "stale"}),
               Memory(text=self.loose, id=f"{self.id}-loose", namespace=namespace,
                      kind="reference", created_at=now - timedelta(days=2),
                      metadata={"scenario": self.id, "role": "loose"})]
        if control:
            out.append(Memory(text=self.fresh, id=f"{self.id}-fresh", namespace=namespace,
                              kind=self.kind, created_at=now - timedelta(hours=6),
                              metadata={"scenario": self.id, "role": "fresh"}))
        return out


@dataclass(frozen=True)
class Use:
    """One past use behind an advice's counters: the memory was served for ``query`` (another
    wording of its need than the evaluated query) and helped or failed."""

    namespace: str
    memory_id: str
    query: str
    success: bool


@dataclass(frozen=True)
class DevSet:
    """One part: advice scenarios and stale-only topics, grouped by namespace, and the serve
    history (``uses``) that earned the advices their successes and failures."""

    part: str
    scenarios: tuple[tuple[str, OutcomeScenario], ...]  # (namespace, scenario)
    topics: tuple[tuple[str, StaleTopic], ...]
    uses: tuple[Use, ...] = ()


def _fill(text: str, slot: tuple[str, str]) -> str:
    return text.replace("{a}", slot[0]).replace("{b}", slot[1] or "it")


def load_devset(part: str) -> DevSet:
    """The generated scenarios of ``part`` (``dev``, ``validation``, ``sealed``, ``withheld``
    or ``reserve``), deterministic."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    scenarios: list[tuple[str, OutcomeScenario]] = []
    topics: list[tuple[str, StaleTopic]] = []
    uses: list[Use] = []
    for seed in SEEDS:
        rng = random.Random(f"{part}-{seed}")
        ns = f"{part}-{seed}"
        for n, (domain, query, good, bad) in enumerate(_NEEDS[part]):
            slot = _SLOTS[domain][seed]
            g, b = rng.choice(_GOOD), rng.choice(_BAD)
            sid = f"{ns}-n{n:02d}"
            scenarios.append((ns, OutcomeScenario(
                sid, domain, _fill(query, slot),
                Advice(_fill(good, slot), *g), Advice(_fill(bad, slot), *b))))
            asked = [_fill(a, slot) for a in _ASKED[part][n]]
            for role, (succ, fail) in (("good", g), ("bad", b)):
                verdicts = [True] * succ + [False] * fail
                uses += [Use(ns, f"{sid}-{role}", asked[u % len(asked)], ok)
                         for u, ok in enumerate(verdicts)]
        for n, (domain, kind, query, stale, fresh, loose) in enumerate(_TOPICS[part]):
            slot = _SLOTS[domain][seed]
            topics.append((ns, StaleTopic(
                f"{ns}-t{n}", domain, kind, _fill(query, slot), _fill(stale, slot),
                _fill(fresh, slot), _fill(loose, slot), expired=(n + seed) % 2 == 0)))
    return DevSet(part, tuple(scenarios), tuple(topics), tuple(uses))
