"""The ``reserve`` part of the generated outcome set (issue #37): a fourth held-apart part.

Written on 2026-11-29, before any run of ``memmaint eval outcomes --part reserve``, by an
author who had not read the retrieval ranking (``maintenance/retrieve/``); to be run once per
mode and never tuned on (docs/evaluation.md). Same shape and sizes as ``withheld`` (16 needs
and 6 stale-only topics per seed, each topic with a control twin, two seeds, one shared
namespace per seed) but four domains none of the other parts uses: a school's parent portal
(``school``), a mobile-phone carrier's support desk (``carrier``), a woodworking workshop
(``woodwork``) and a small online shop's seller support (``seller``), four needs each, so every
need shares its namespace with three needs of its own domain. Within a domain some questions
share words besides the slot (the parent portal, the eSIM, the table saw's board, the shop).

The tuples have the layout of :mod:`memmaint.datasets.outcome_devset`'s tables, which merges
them in under ``"reserve"``; :func:`~memmaint.datasets.outcome_devset.load_devset` seeds them
apart like the other parts (``random.Random(f"reserve-{seed}")``).
"""

from __future__ import annotations

# (domain, query, good, bad): the failed advice echoes the query more or less (the last need
# of each domain echoes least), the two advices share more or fewer words.
NEEDS: list[tuple[str, str, str, str]] = [
    ("school", "How do I report my child sick at {a} in the parent portal?",
     ("Log the absence under Attendance before 8:45; after that, phone the school office so "
      "the register is not marked as unauthorised."),
     ("To report your child sick at {a}, send a message in the parent portal to your child's "
      "teacher whenever you get round to it.")),
    ("school", "How do I top up my child's lunch account at {a} in the parent portal?",
     ("School meals are paid on the separate payments site linked under Finance; a payment "
      "shows the next school day, so pay by Thursday for the week after."),
     ("To top up the lunch account at {a}, open the parent portal and type the amount for "
      "the lunch account into a message to the office.")),
    ("school", "Why can't I see my child's school report at {a}?",
     ("Reports are released only to the parent account set as the primary contact; ask the "
      "office to give the second parent report access."),
     ("You can't see your child's school report at {a} because school reports at {a} are "
      "only handed out on paper.")),
    ("school", "My child missed the deadline for the trip consent form at {a}, can they still go?",
     ("Email the trip leader today; late forms are usually accepted while places and payment "
      "are open, but the coach list is final two days before."),
     "No: once the deadline for a trip form has passed, the child cannot go on the trip."),
    ("carrier", "How do I move my eSIM to a new phone on the {a}?",
     ("Start the transfer in the old phone's settings with both phones on Wi-Fi; if it "
      "fails, request a new QR code in the app, which switches off the old profile."),
     ("To move your eSIM to a new phone on the {a}, delete the eSIM from the old phone first "
      "and scan the same eSIM code on the new phone.")),
    ("carrier", "Why is my {a} bill higher than usual this month?",
     ("Open the itemised usage in the app: extra charges usually come from roaming days or "
      "premium-rate numbers, and both can be barred in the settings."),
     ("Your {a} bill is higher than usual this month because of a billing error; the higher "
      "{a} bill corrects itself next month.")),
    ("carrier", "My phone shows no service since the eSIM for the {a} was activated, what now?",
     ("Turn the new line on under Mobile Data and make it the default for data; if it still "
      "has no service, the number transfer can take up to 24 hours."),
     ("If your phone shows no service since the eSIM for the {a} was activated, the eSIM is "
      "broken; order a physical SIM instead of the eSIM.")),
    ("carrier", "My SIM for the {a} is asking for a PUK code, what do I do?",
     ("The unblocking code is on the account page under SIM details, or call us from "
      "another phone; ten wrong tries lock the card for good."),
     "Keep guessing the PUK code; the default PUK code is 0000 on every SIM."),
    ("woodwork", "Why does the table saw burn the edge when I rip boards for the {a}?",
     ("Burn marks come from a dull or pitch-coated blade or a fence toed in at the back; "
      "clean the blade and set the fence parallel to the mitre slot."),
     ("The table saw burns the edge when you rip boards for the {a} because you feed too "
      "fast; push the boards through the table saw very slowly.")),
    ("woodwork", "How do I stop the boards of the {a} splitting when I drive screws in?",
     ("Drill a pilot hole the size of the screw's core and a clearance hole in the top piece; "
      "rub wax on the threads in hardwood."),
     ("To stop the boards of the {a} splitting when you drive screws in, drive the screws in "
      "faster with a bigger driver.")),
    ("woodwork", "How long should the glue dry before I take the clamps off the {a}?",
     ("PVA needs about an hour under pressure and a full day before the joint takes load; "
      "leave it longer in a cold workshop."),
     ("Take the clamps off the {a} once the glue looks dry, about five minutes; glue that "
      "looks dry is dry enough.")),
    ("woodwork", "The stain on the {a} came out blotchy, what went wrong?",
     ("Pine and cherry soak up stain unevenly; a washcoat of thinned shellac or a pre-stain "
      "conditioner before staining evens it out."),
     ("If the stain on the {a} came out blotchy, nothing went wrong; brush another thick "
      "coat on top.")),
    ("seller", "A buyer says their parcel from my {a} shop never arrived, what should I do?",
     ("Check the tracking first; if it shows delivered, ask them to check with neighbours, "
      "and without tracking refund or resend, since the platform sides with the buyer."),
     ("If a buyer says their parcel from your {a} shop never arrived, tell the buyer the "
      "parcel arrived and the parcel is now their problem.")),
    ("seller", "Why are the listings in my {a} shop not showing up in search?",
     ("New listings take up to 24 hours to be indexed; then put the words buyers type at the "
      "start of the title and fill in every attribute."),
     ("The listings in your {a} shop are not showing up in search because search is broken; "
      "relist the listings in the {a} shop every day.")),
    ("seller", "When do I get paid for orders from my {a} shop?",
     ("Payouts go out every Monday for orders marked as shipped, minus fees; a new account's "
      "first payout is held for 14 days."),
     ("You get paid for orders from your {a} shop the moment a buyer orders, straight into "
      "your bank account.")),
    ("seller", "A buyer wants to return an item from my {a} shop after using it, must I accept?",
     ("Your own policy decides change-of-mind returns, so a worn item can be refused, but a "
      "faulty one must be repaired, replaced or refunded by law."),
     "Refuse the return; a seller never has to take back an item the buyer has used."),
]

# Two other wordings per need, aligned with NEEDS (the serve history behind the counters);
# written once and left as written: their cosine to the evaluated query was measured only
# after every text of the part was final (docs/evaluation.md).
ASKED: list[tuple[str, str]] = [
    ("Calling in sick for my kid at {a}",
     "Where do I log an absence in the {a} portal?"),
    ("Add money to the {a} dinner account",
     "How do I pay for school meals at {a}?"),
    ("The end-of-term report from {a} is not in my account",
     "Parent login does not show the {a} report"),
    ("Forgot to send back the permission slip for the {a} trip",
     "Late consent form for a school outing at {a}"),
    ("Moving my {a} eSIM to my new iPhone",
     "Switched phones, how do I get the {a} line onto the new one?"),
    ("My {a} invoice is way more than normal",
     "Extra charges on this month's {a} statement"),
    ("No service after activating the {a} eSIM",
     "New {a} line not working, the phone only says SOS"),
    ("The {a} SIM is locked and wants a PUK",
     "Phone says SIM blocked, enter PUK, on my {a}"),
    ("Scorch marks on the {a} boards after ripping them",
     "The saw blade leaves black burns on wood for the {a}"),
    ("Screws keep cracking the wood of the {a}",
     "How to screw the {a} together without it splitting"),
    ("Clamp time for wood glue on the {a}",
     "When can I unclamp the {a} glue-up?"),
    ("Stain looks patchy on the {a}",
     "Uneven colour after staining the {a}"),
    ("Customer claims the {a} shop order never came",
     "Parcel lost, a customer of my {a} shop wants a refund"),
    ("My {a} shop items can't be found in search",
     "Nobody sees my new listings in the {a} shop"),
    ("Payout schedule for my {a} shop",
     "When does the money from {a} shop sales reach my bank?"),
    ("Return request for a used item from my {a} shop",
     "Customer used the product from my {a} shop and now wants a refund"),
]

SLOTS: dict[str, list[tuple[str, str]]] = {
    "school": [("Maple Street Primary", ""), ("Riverside Academy", "")],
    "carrier": [("Unlimited 5G plan", ""), ("Basic 10GB plan", "")],
    "woodwork": [("oak bookshelf", ""), ("pine workbench", "")],
    "seller": [("candle", ""), ("vintage clothing", "")],
}

# (domain, kind, query, stale answer, fresh answer, loosely related note)
TOPICS: list[tuple[str, str, str, str, str, str]] = [
    ("school", "schedule", "When is the next parents' evening at {a}?",
     "The next parents' evening at {a} is on Tuesday 14 October.",
     "The next parents' evening at {a} moved to Thursday 16 October.",
     "Parents book their slots with each teacher in the parent portal."),
    ("carrier", "price", "How much does the {a} cost per month now?",
     "The {a} costs 25 a month.",
     "The {a} costs 28 a month since the April price rise.",
     "Calls to other customers on the same network are free on every plan."),
    ("woodwork", "availability", "Does the timber yard have the boards for the {a} in stock?",
     "The timber yard has the boards for the {a} in stock.",
     "The timber yard is out of the boards for the {a} until the delivery on the 12th.",
     "The timber yard cuts boards to length for a small fee."),
    ("seller", "price", "What fee does the marketplace take on each sale from my {a} shop?",
     "The marketplace takes 6.5 percent of each sale from your {a} shop.",
     "The marketplace takes 8 percent of each sale from your {a} shop since the fee change.",
     "Sellers can print postage labels from the orders page."),
    ("woodwork", "schedule", "When is the shared workshop open so I can work on the {a}?",
     "The shared workshop is open for work on the {a} on Wednesday evenings from 18:00.",
     "The shared workshop's open evenings moved to Tuesday from 18:30, also for the {a}.",
     "Members of the shared workshop sweep up around the machines before they leave."),
    ("carrier", "availability", "Does the carrier shop have the new Pixel in stock for a {a} upgrade?",
     "The carrier shop has the new Pixel in stock for {a} upgrades.",
     "The new Pixel is out of stock at the carrier shop; {a} upgrades can be ordered online.",
     "Staff at the carrier shop can copy your contacts over to a new phone."),
]
