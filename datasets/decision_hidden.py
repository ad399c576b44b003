"""The ``hidden`` part of the decision set: hand-written groups only (issue #32).

A fifth held-out check, written after ``fresh``, ``blind``, ``sealed`` and ``unseen``: its
subjects, holders, names and wordings appear nowhere in the other parts or the template
families, and it was written blind, as a user's real memories would be, without reading the
rule agents, their tests or the documented failures. It covers a personal assistant's user
profile (diet, health, family, hobbies, travel, money, home), a coding assistant's project
notes (CI, languages, versions, pipelines, reviewers, owners), a customer-support knowledge
base (gift cards, refunds, shipping, discounts, support hours, tickets) and meeting and
conversation summaries with named people. Styles: full sentences, terse notes ("Frontend:
React."), first person ("I'm lactose intolerant."), openers ("Note:", "KB:", "Per Wiebke,"),
reported speech ("Fenella said ...", "Solveig told us ..."), meeting notes whose first sentence
names the meeting. Duplicates mix paraphrases that share few words, first / third person
rewordings, three-member groups and one exact copy; refinements add details in the same
sentence or in a sentence of their own, with the detailed memory sometimes first; updates
mix explicit wordings ("now", "moved", "rescheduled", "went up to", "slipped to", "dropped
to", "has a new number") with a new value stated months later with no change word; distinct
groups name different tickets, rooms, app versions, invoices, hotels, bikes, alarms and
people with one attribute in common; temporal groups repeat an event on different days, with
relative words and absolute dates. Every group has one outcome a careful reader would agree
with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part hidden``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

FDE = (("f", "d", "e"),)

HIDDEN_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Gesine is vegan.", "01-09", F),
                   ("Gesine follows a plant-based diet with no animal products at all.",
                    "04-15", F))),
    ("duplicate", (("CI runs on Woodpecker.", "01-16", F),
                   ("Our pipelines are executed by Woodpecker agents.", "03-04", F),
                   ("Woodpecker is what the team uses for continuous integration.", "06-11",
                    F))),
    ("duplicate", (("Gift cards never expire.", "02-03", F),
                   ("KB: there is no expiry date on gift cards.", "05-22", F))),
    ("duplicate", (("I'm lactose intolerant.", "01-27", F),
                   ("The user can't digest lactose.", "03-30", F))),
    ("duplicate", (("The user's sister Jazmin lives in Valparaiso.", "02-08", F),
                   ("Jazmin, my sister, is based in Valparaiso.", "07-19", F))),
    ("duplicate", (("Leofric is the product owner for the mobile app.", "01-13", F),
                   ("The mobile app's product owner is Leofric.", "02-26", F),
                   ("Leofric makes the product calls for the mobile app.", "05-07", F))),
    ("duplicate", ((("The office Wi-Fi password rotates on the first Monday of each month."),
                    "02-12", F),
                   (("The office Wi-Fi password rotates on the first Monday of each month."),
                    "06-03", F))),
    ("duplicate", (("The user prefers aisle seats on flights.", "03-02", F),
                   ("When flying, I always pick a seat on the aisle.", "08-21", F))),
    ("duplicate", (("Our boiler is installed in the garage.", "01-21", F),
                   ("The boiler is out in the garage.", "04-09", F))),
    ("duplicate", ((("The user's council tax is paid by direct debit on the 1st of each "
                     "month."), "02-17", F),
                   ("Council tax leaves my account on the 1st of every month by direct debit.",
                    "05-28", F))),
    ("duplicate", (("Wilhelmina knits her own socks.", "03-09", F),
                   ("Wilhelmina makes all of her socks herself on knitting needles.", "06-24",
                    F))),
    ("duplicate", (("Fenella said she can't stand coriander.", "02-22", F),
                   ("Fenella hates coriander.", "04-30", F))),
    ("duplicate", ((("Planning call with Tadhg and Esperanza. We agreed the public API stays "
                     "on version 2 until next year."), "03-14", (("c",), ("f",))),
                   ("Public API: remains v2 until next year.", "04-02", F))),
    ("duplicate", (("Customers can change their delivery address until the order is packed.",
                    "01-30", F),
                   (("Note: the shipping address on an order can be edited right up to the "
                     "moment it gets packed."), "05-15", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("The user has a dog.", "01-11", F),
                    ("The user has a three-year-old border collie called Pippin.", "03-23",
                     FD))),
    ("refinement", (("Backups of the main database are taken nightly.", "02-06", F),
                    (("The main database is backed up every night at 02:00 UTC to an S3 "
                      "bucket in eu-west-1."), "04-18", FD))),
    ("refinement", (("Students get a discount.", "01-25", F),
                    ("Students get 40% off any plan with a valid university email address.",
                     "03-12", FD))),
    ("refinement", (("Ottoline takes medication for her blood pressure.", "02-19", F),
                    ("Ottoline takes 5 mg of amlodipine every morning for her blood pressure.",
                     "06-06", FD))),
    ("refinement", (("The user is visiting Japan in April.", "01-05", F),
                    ("The user is visiting Japan in April for two weeks.", "02-14", FD),
                    ("Japan trip in April: two weeks, flying into Sapporo and out of Fukuoka.",
                     "03-01", FDE))),
    ("refinement", ((("Lisandro runs marathons. His best time is 3 hours 12 minutes, set in "
                      "Ljubljana."), "02-28", (("f",), ("d",))),
                    ("Lisandro runs marathons.", "05-03", F))),
    ("refinement", (("Solveig told us she's leaving the company.", "02-10", F),
                    (("Solveig is leaving the company at the end of March to join a climate "
                      "startup."), "02-24", FD))),
    ("refinement", (("The kitchen tap drips.", "03-18", F),
                    (("The hot side of the kitchen mixer tap drips even when it's turned off "
                      "fully."), "04-04", FD))),
    ("refinement", (("The user invests in index funds.", "01-19", F),
                    (("The user puts 300 pounds a month into a global index fund through a "
                      "stocks and shares ISA."), "07-08", FD))),
    ("refinement", (("Frontend: React.", "01-04", F),
                    ("The frontend is built with React 18 and TypeScript, bundled by Vite.",
                     "02-20", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The user's GP surgery is Hollins Road Medical Centre.", "01-18", OLD),
                ("After the move the user registered with the Brookvale Practice as their GP.",
                 "08-09", NEW))),
    ("update", (("Ragnhild's mobile number ends in 4471.", "02-01", OLD),
                ("Ragnhild's number ends in 0932.", "09-12", NEW))),
    ("update", (("The deploy pipeline takes about 25 minutes.", "01-23", OLD),
                ("The deploy pipeline takes about 9 minutes.", "06-18", NEW))),
    ("update", (("The support inbox is staffed from 8am to 6pm.", "02-05", OLD),
                ("Support hours are now 7am to 9pm.", "05-13", NEW))),
    ("update", (("Kasimir is the tech lead of the payments squad.", "01-15", OLD),
                ("Kasimir moved to the search squad as its tech lead.", "07-01", NEW))),
    ("update", (("I climb around 6a indoors.", "02-13", OLD),
                ("I'm climbing 6c now.", "10-02", NEW))),
    ("update", (("The user banks with Nationwide.", "01-08", OLD),
                ("The user's current account is with Nationwide.", "03-19", OLD),
                ("The user moved their current account to Triodos.", "08-27", NEW))),
    ("update", (("The project targets Python 3.10.", "01-29", OLD),
                ("Minimum supported Python is 3.12 now.", "06-26", NEW))),
    ("update", (("Idris's son is in year 4.", "03-05", OLD),
                ("Idris's son has started year 5.", "09-09", NEW))),
    ("update", (("The flight to Seville departs at 10:05.", "04-22", OLD),
                ("The Seville flight was rescheduled to 13:40.", "05-16", NEW))),
    ("update", (("The user's landlord is Mr Pemberton.", "01-31", OLD),
                ("The flat was sold, and the new landlord is Clearwater Lettings.", "07-23",
                 NEW))),
    ("update", (("Orders over 50 euros ship free.", "02-15", OLD),
                ("The free shipping threshold went up to 75 euros.", "08-05", NEW))),
    ("update", (("Password reset links are valid for 24 hours.", "01-12", OLD),
                ("Password reset links are valid for 30 minutes.", "06-14", NEW))),
    ("update", (("The launch is planned for 14 June.", "03-07", OLD),
                (("Weekly sync with Oksana and Benedek. The launch slipped to 5 July."),
                 "05-30", (("c",), ("new",))))),
    ("update", (("Seraphina's favourite band is Portishead.", "02-09", OLD),
                ("These days Seraphina's favourite band is Idles.", "10-21", NEW))),
    ("update", (("The user's savings account pays 4.1% interest.", "03-27", OLD),
                ("The savings account rate dropped to 3.6%.", "09-30", NEW))),
    # -- contradiction: two values written at the same instant --------------------------------
    ("contradiction", (("Cosima's birthday is in October.", "04-12", A),
                       ("Cosima's birthday is in November.", "04-12", B))),
    ("contradiction", (("The warehouse in Tilburg has 14 loading docks.", "03-21", A),
                       ("The Tilburg warehouse has 18 loading docks.", "03-21", B))),
    ("contradiction", (("Gideon's flat is on the fourth floor.", "05-06", A),
                       ("Gideon lives on the sixth floor of his building.", "05-06", B))),
    ("contradiction", (("Refund requests must be made within 14 days of delivery.", "02-27",
                        A),
                       ("Customers have 30 days from delivery to ask for a refund.", "02-27",
                        B))),
    ("contradiction", (("Per Wiebke, the staging database has 64 GB of RAM.", "06-19", A),
                       ("Per Wiebke, the staging database has 128 GB of RAM.", "06-19", B))),
    ("contradiction", (("The hire car booked for Crete is a Fiat Panda.", "07-03", A),
                       ("The hire car for the Crete trip is a Seat Ibiza.", "07-03", B))),
    ("contradiction", (("The team's sprints are two weeks long.", "01-24", A),
                       ("Sprints on the team last three weeks.", "01-24", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Ticket SUP-20417: customer charged twice for one order.", "03-11",
                           A),
                          ("Ticket SUP-20422: customer charged for a cancelled order.",
                           "03-12", B))),
    ("distinct_related", (("Meeting room Birch has a video conferencing screen.", "02-02", A),
                          ("Meeting room Cedar has a video conferencing screen.", "02-02",
                           B))),
    ("distinct_related", (("Torvald's daughter Liv is studying medicine in Bergen.", "01-28",
                           A),
                          ("Torvald's son Aksel is studying law in Oslo.", "04-16", B))),
    ("distinct_related", (("Version 3.8 of the mobile app added dark mode.", "02-21", A),
                          ("Version 3.9 of the mobile app added offline maps.", "04-25",
                           B))),
    ("distinct_related", (("The user is allergic to penicillin.", "01-10", A),
                          ("The user is allergic to latex.", "05-24", B))),
    ("distinct_related", (("The hotel in Aveiro is booked for three nights.", "06-07", A),
                          ("The hotel in Braga is booked for two nights.", "06-07", B))),
    ("distinct_related", (("Adaeze reviews all the database schema changes.", "03-15", A),
                          ("Florentyna reviews all the infrastructure changes.", "03-29",
                           B))),
    ("distinct_related", (("The smoke alarm in the hallway runs on a 9V battery.", "02-25", A),
                          ("The smoke alarm in the loft is hard-wired.", "02-25", B))),
    ("distinct_related", (("Invoice INV-7731 to Harrowgate Ltd is for 2,400 euros.", "04-01",
                           A),
                          ("Invoice INV-7734 to Harrowgate Ltd is for 860 euros.", "04-08",
                           B),
                          ("Invoice INV-7735 to Pellworth GmbH is for 2,400 euros.", "04-08",
                           C))),
    ("distinct_related", (("The user's road bike is a Canyon Endurace.", "05-09", A),
                          ("The user's gravel bike is a Ribble CGR.", "07-14", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Had a migraine this morning.", "03-11", A),
                  ("Another migraine today, the user took the afternoon off.", "04-29", B),
                  ("The user had a migraine again last week.", "06-17", C))),
    ("temporal", (("The nightly export job timed out yesterday.", "02-07", A),
                  ("The nightly export timed out again yesterday.", "05-22", B))),
    ("temporal", (("On 9 March the user ran the Hackney Half.", "03-12", A),
                  ("The user ran another half marathon last weekend.", "10-14", B))),
    ("temporal", ((("The payment provider had an outage this morning and checkout failed for "
                    "an hour."), "06-03", A),
                  ("Checkout failed again today because the payment provider went down.",
                   "08-26", B))),
    ("temporal", (("Visited Grandma Rosalind at the care home last weekend.", "01-22", A),
                  ("We went to see Grandma Rosalind again last weekend.", "03-04", B))),
    ("temporal", (("Evert gave a talk on observability at the guild meeting last week.",
                   "02-20", A),
                  (("On 18 September Evert gave his observability talk again, this time at "
                    "a meetup."), "09-23", B))),
    ("temporal", (("The basement flooded after heavy rain last week.", "01-30", A),
                  ("The basement took on water again tonight.", "11-08", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Cordelia collects vintage fountain pens.", "02-04", F),)),
    ("unrelated", (("The user never takes calls before 10am.", "03-26", F),)),
    ("unrelated", (("Resellers must sign the partner agreement before getting API keys.",
                    "05-01", F),)),
    ("unrelated", (("The monorepo uses Bazel for builds.", "06-12", F),)),
    ("unrelated", (("The user's balcony gets direct sun only after 3pm.", "07-29", F),)),
    ("unrelated", (("Note: Barnaby is colour-blind, so avoid red/green charts for him.",
                    "09-05", F),)),
)

__all__ = ["HIDDEN_HAND"]
