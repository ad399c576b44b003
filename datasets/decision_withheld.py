"""The ``withheld`` part of the decision set: hand-written groups only (issue #32).

A sixth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen`` and
``hidden``: its subjects, holders, names and wordings appear nowhere in the other parts or
the template families, and it was written blind on 2026-11-29, as the stores of agents
people use would hold them, without reading the rule agents, their tests or the documented
failures. It covers a sales CRM (accounts, contacts, deals, quotes, renewals), a fitness
and health coach (training plans, lifts, races, supplements), home automation (lights,
blinds, thermostat, sensors, locks), travel (trains, flights, hotels, visas, insurance),
personal finance (cards, bills, insurance, pensions), a tutor's notes on pupils, a game
master's campaign notes, a coding assistant's project notes and a customer-support knowledge
base. Styles: full sentences, terse notes ("billing API: runs on k8s.", "Squat 1RM: 125
kg."), first person ("No low-cost carriers for me, please."), openers ("CRM note:", "GM
note:", "Coach:", "Heads up:", "Per Lotte,"), abbreviations ("4x", "HR", "k8s", "DB"), call
and meeting notes whose first sentence names the call. Duplicates mix paraphrases with
reordered clauses and different frames, three-member groups and one exact copy; refinements
add details in the same sentence or in a sentence of their own, with the detailed memory
sometimes first; updates mix change wordings ("now", "switched", "reassigned", "lowered",
"increased", "no longer", "cancelled", "shelved", "pushed to", "joined") with a new value
restated months later with no change word; contradictions are two values saved at the same
instant; distinct groups differ by a ticket number, a month, a room, a person, a key, a
migration or a card, sometimes by that alone; temporal groups repeat an event on different
days, with relative words and absolute dates. Every group has one outcome a careful reader
would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part withheld``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

WITHHELD_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("The hallway lights switch off automatically at 23:30.", "01-14", F),
                   ("Automation: hallway lights off every night at 11:30 pm.", "03-02", F),
                   ("At half past eleven each night the hallway lights go off on their own.",
                    "05-19", F))),
    ("duplicate", (("Brightwater Foods renews its contract every January.", "02-04", F),
                   ("CRM note: Brightwater Foods' renewal date falls in January each year.",
                    "06-12", F))),
    ("duplicate", (("The user won't fly with budget airlines.", "01-22", F),
                   ("No low-cost carriers for me, please.", "04-08", F))),
    ("duplicate", (("I put 8% of my salary into my pension.", "02-19", F),
                   ("The user's pension contribution is 8 percent of their pay.", "07-03",
                    F))),
    ("duplicate", (("Rhiannon struggles with long division.", "01-29", F),
                   ("Long division is a weak spot for Rhiannon.", "03-14", F))),
    ("duplicate", (("Okonkwo plays the party's ranger.", "02-11", F),
                   ("The ranger in the party is Okonkwo's character.", "02-25", F))),
    ("duplicate", (("The billing API is deployed to Kubernetes.", "01-17", F),
                   ("billing API: runs on k8s.", "04-23", F))),
    ("duplicate", (("Loyalty points expire after 18 months.", "02-07", F),
                   ("KB: unused loyalty points lapse a year and a half after they are earned.",
                    "05-06", F))),
    ("duplicate", (("The user's daughter Wren plays the violin.", "03-09", F),
                   ("Wren, my daughter, plays violin.", "08-15", F))),
    ("duplicate", (("The client trains four days a week.", "01-09", F),
                   ("Coach: client works out 4x per week.", "02-27", F),
                   ("Four training days a week is the client's routine.", "06-30", F))),
    ("duplicate", (("Halvorsen Marine prefers to be contacted by phone rather than email.",
                    "03-21", F),
                   ("Call Halvorsen Marine, don't email them.", "05-28", F))),
    ("duplicate", (("The garage door is controlled by a Shelly relay.", "02-15", F),
                   ("The garage door is controlled by a Shelly relay.", "09-04", F))),
    ("duplicate", (("When booking hotels, ask for a room on an upper floor.", "04-02", F),
                   ("The user always wants a high-floor hotel room.", "07-11", F))),
    ("duplicate", ((("Call with Dariusz from Kestrel Logistics. He confirmed they pay invoices "
                    "net 60."), "03-05", CF),
                   ("Kestrel Logistics pays on 60-day terms.", "04-17", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("The client is training for a triathlon.", "01-12", F),
                    (("The client is training for an Olympic-distance triathlon in Zell am See "
                      "at the end of August."), "02-09", FD))),
    ("refinement", (("There is a leak sensor under the sink.", "02-03", F),
                    (("A Zigbee leak sensor sits under the kitchen sink and sends an alert to "
                      "the user's phone when it gets wet."), "03-18", FD))),
    ("refinement", (("Kallisto Pharma is evaluating the enterprise plan.", "02-20", F),
                    (("Kallisto Pharma is evaluating the enterprise plan for 300 seats, with a "
                      "decision expected by the end of the quarter."), "03-26", FD))),
    ("refinement", ((("The user rents out a lock-up garage to a neighbour for 90 pounds a "
                      "month."), "01-25", FD),
                    ("The user rents out a garage.", "04-14", F))),
    ("refinement", (("Aurelio is preparing for his A-levels.", "01-06", F),
                    ("Aurelio is sitting A-levels in maths, physics and chemistry next summer.",
                     "01-20", FD))),
    ("refinement", ((("GM note: the party owes the Black Lantern thieves' guild 500 gold for "
                      "smuggling them out of Vessmoor."), "02-24", FD),
                    ("The party owes a debt to the thieves' guild.", "03-10", F))),
    ("refinement", (("Errors are reported to Sentry.", "01-31", F),
                    ("All errors end up in Sentry. Performance traces are sampled at 20%.",
                     "05-08", F_D))),
    ("refinement", (("The user has a visa for India.", "02-13", F),
                    ("The user holds a five-year multiple-entry e-visa for India.", "06-05",
                     FD))),
    ("refinement", (("Bulk orders get a discount.", "03-03", F),
                    ("Bulk orders of 50 units or more get 12% off the list price.", "03-17",
                     FD))),
    ("refinement", (("The user is learning Catalan.", "01-19", F),
                    (("The user is learning Catalan with a tutor on Thursday evenings, "
                      "ahead of a move to Girona."), "04-21", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The account manager for Pellucid Health is Ruaridh.", "01-08", OLD),
                ("Pellucid Health has been reassigned to Marit.", "06-17", NEW))),
    ("update", (("The client's squat 1RM is 110 kg.", "01-16", OLD),
                ("Squat 1RM: 125 kg.", "05-22", NEW))),
    ("update", (("The thermostat is set to 21°C during the day.", "01-05", OLD),
                ("Daytime thermostat setpoint lowered to 19.5°C to save energy.", "10-09",
                 NEW))),
    ("update", (("The user's trip to Marrakech is booked for the second week of October.",
                 "05-12", OLD),
                ("The user cancelled the Marrakech trip.", "08-20", NEW))),
    ("update", (("The user's car insurance is with Admiral.", "02-02", OLD),
                ("The user switched car insurance to Direct Line at renewal.", "09-15",
                 NEW))),
    ("update", (("Ilse's tutoring sessions are on Tuesdays at 4pm.", "01-10", OLD),
                ("Ilse has tutoring on Wednesdays at 5pm.", "04-29", NEW))),
    ("update", (("Brannoc the dwarf has 34 maximum hit points.", "02-17", OLD),
                ("Brannoc levelled up, his max HP is 41 now.", "04-06", NEW))),
    ("update", (("The orders database runs PostgreSQL 14.", "01-23", OLD),
                ("The orders DB is on Postgres 16 since the upgrade.", "07-24", NEW))),
    ("update", (("Live chat is available on weekdays only.", "02-21", OLD),
                ("Live chat is now open seven days a week.", "06-03", NEW))),
    ("update", (("Ingeborg works at Spotify as a data engineer.", "01-27", OLD),
                ("Ingeborg joined Klarna in September.", "09-26", NEW))),
    ("update", (("The user's office is at 22 Quay Street.", "02-06", OLD),
                ("The user's office is at 8 Ropewalk Lane.", "08-01", NEW))),
    ("update", (("Our quote to Verdant Roofing was 18,500 euros.", "03-04", OLD),
                ("Revised quote sent to Verdant Roofing: 16,900 euros.", "03-28", NEW))),
    ("update", (("The user wants the weekly summary email on Mondays.", "01-13", OLD),
                ("The user no longer wants the weekly summary email.", "05-02", NEW))),
    ("update", (("The team decided to migrate the public API from REST to GraphQL.", "02-12",
                 OLD),
                ("The GraphQL migration was shelved and the API is staying on REST.", "06-25",
                 NEW))),
    ("update", (("The client takes 2,000 IU of vitamin D daily.", "01-18", OLD),
                ("Client is on 2000 IU vitamin D per day.", "03-07", OLD),
                ("The GP increased the client's vitamin D to 4,000 IU a day.", "10-16",
                 NEW))),
    ("update", (("The Maelstrom Media deal is expected to close in Q1.", "01-24", OLD),
                (("Pipeline review with Lotte and Gareth. The Maelstrom Media deal was pushed "
                 "to Q2."), "03-19", CNEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Thornbury Analytics has 240 employees.", "03-13", A),
                       ("Thornbury Analytics employs around 400 people.", "03-13", B))),
    ("contradiction", (("The client's goal race is the Rotterdam Marathon.", "02-26", A),
                       ("The client's target race is the Frankfurt Marathon.", "02-26", B))),
    ("contradiction", (("The main Wi-Fi router is in the living room.", "04-10", A),
                       ("The Wi-Fi router sits in the study upstairs.", "04-10", B))),
    ("contradiction", (("The user's train to Edinburgh leaves at 08:30.", "05-15", A),
                       ("The user's Edinburgh train departs at 09:00.", "05-15", B))),
    ("contradiction", (("The user's tax return is done by an accountant called Harriet.",
                        "01-30", A),
                       ("Desmond does the user's tax return.", "01-30", B))),
    ("contradiction", (("Vessmoor is ruled by a council of merchants.", "02-24", A),
                       ("Vessmoor is ruled by Duchess Ilvane.", "02-24", B))),
    ("contradiction", (("Per Lotte, the Trondheim store closes at 8pm on Saturdays.", "06-11", A),
                       ("On Saturdays the Trondheim store shuts at 6pm.", "06-11", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Ticket CS-88120: refund not received after 10 days.", "04-03", A),
                          ("Ticket CS-88127: refund not received after 10 days.", "04-04",
                           B))),
    ("distinct_related", (("Halima completed the beginner strength programme.", "03-27", A),
                          ("Joaquim completed the beginner strength programme.", "05-13",
                           B))),
    ("distinct_related", (("The water bill for March was 48 pounds.", "04-02", A),
                          ("The water bill for April was 52 pounds.", "05-02", B))),
    ("distinct_related", (("The living room blinds close at sunset.", "02-09", A),
                          ("The bedroom blinds close at sunset.", "02-09", B))),
    ("distinct_related", ((("Margot Aaltonen is the procurement contact at Nordhavn "
                           "Shipping."), "03-11", A),
                          ("Sebastián Ferreyra is the technical contact at Nordhavn Shipping.",
                           "03-11", B))),
    ("distinct_related", (("The party found a silver key in the crypt.", "03-10", A),
                          ("The party found a bronze key in the lighthouse.", "03-24", B))),
    ("distinct_related", (("Aurelio scored 72% on the mock physics paper.", "02-28", A),
                          ("Aurelio scored 64% on the mock chemistry paper.", "03-01", B))),
    ("distinct_related", (("The user's travel insurance covers winter sports.", "01-04", A),
                          ("The user's travel insurance covers trip cancellation.", "01-04",
                           B))),
    ("distinct_related", (("Migration 0042 adds an index on orders.created_at.", "05-20", A),
                          ("Migration 0043 adds an index on orders.customer_id.", "05-21", B),
                          ("Migration 0044 adds an index on orders.status.", "05-27", C))),
    ("distinct_related", (("The user's Amex statement closes on the 3rd.", "06-08", A),
                          ("The user's Visa statement closes on the 18th.", "06-08", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("The client skipped the long run yesterday because of calf pain.", "03-17",
                   A),
                  ("Calf pain again on today's long run, the client stopped at 12 km.",
                   "04-14", B))),
    ("temporal", (("The front door lock ran out of battery this morning.", "02-05", A),
                  ("The smart lock's batteries died again last week.", "07-22", B))),
    ("temporal", (("The user's flight home from Athens was cancelled tonight.", "06-21", A),
                  ("On 2 August the user's Athens flight was delayed by four hours.", "08-04",
                   B))),
    ("temporal", (("Demo with Kallisto Pharma went well today.", "02-20", A),
                  ("Second demo for Kallisto Pharma last week, this time for their IT team.",
                   "03-06", B))),
    ("temporal", (("The party fought the wyvern at Greyfen Pass tonight.", "03-23", A),
                  ("The wyvern came back tonight and the party barely survived.", "04-20",
                   B))),
    ("temporal", (("The user's card was declined at the supermarket yesterday.", "09-03", A),
                  ("The card got declined again this morning at a petrol station.", "10-12",
                   B),
                  ("On 9 November the user's card was declined online.", "11-10", C))),
    ("temporal", (("Ilse missed her tutoring session today.", "02-13", A),
                  ("Ilse missed another session last week, she was ill.", "03-11", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("The smart speaker in the kitchen is set to British English.", "03-08",
                    F),)),
    ("unrelated", (("Orrin the bard owes the innkeeper at the Drowned Rat a favour.", "04-20",
                    F),)),
    ("unrelated", (("Engraved items can't be returned.", "05-09", F),)),
    ("unrelated", (("The client hates treadmills and would rather run outdoors.", "02-01",
                    F),)),
    ("unrelated", (("The CI cache is keyed on the lockfile hash.", "06-19", F),)),
    ("unrelated", (("Nordhavn Shipping's financial year starts in April.", "07-07", F),)),
)

__all__ = ["WITHHELD_HAND"]
