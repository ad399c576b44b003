"""The ``sealed`` part of the decision set: hand-written groups only (issue #32).

A third held-out check, written after ``fresh`` and ``blind`` had both been read: its
subjects, holders, names and wordings appear nowhere in ``dev``, ``validation``, ``fresh``,
``blind`` or the template families, and it was written as a user of agent memory would write,
without reading the rule agents. It covers user profile facts and preferences, coding-assistant
project notes (versions, configs, endpoints, CI), a customer-support knowledge base, meeting
and conversation summaries with named people, travel, health, finance and household notes, in
first and third person, with informal notes and hedges ("IIRC", "Note to self", "pretty sure").
Duplicates and refinements include wordless paraphrases (the same fact in few shared words) as
well as close rewordings and three-member groups; updates come in every wording (the same
wording with a new value months later, a new value stated without any "now", explicit changes,
a reversed decision; numbers, dates, places, employers, versions, preferences and
relationship status); distinct groups include identifiers that name a subject (tickets, SDK
versions, labs, booking references, direct debits) and similar events on different dates.
Every group has one outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part sealed``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

SEALED_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("The user gets seasick.", "01-09", F),
                   ("Boats make the user nauseous.", "04-14", F))),
    ("duplicate", (("Pretty sure Colm can't swim.", "02-02", F),
                   ("Colm never learned to swim.", "05-25", F))),
    ("duplicate", (("Orders over 80 euros ship free.", "01-16", F),
                   ("KB: no delivery charge once a basket goes above €80.", "03-27", F))),
    ("duplicate", (("The ledger service runs on Node 20.", "02-19", F),
                   ("ledger service: Node 20 runtime.", "04-03", F))),
    ("duplicate", (("Thandiwe works as a structural engineer.", "01-24", F),
                   ("Thandiwe's job: structural engineering.", "03-13", F),
                   ("Thandiwe mentioned she's a structural engineer by trade.", "06-07", F))),
    ("duplicate", (("I can't stand horror films.", "02-21", F),
                   ("Scary movies are a hard no for me.", "05-02", F))),
    ("duplicate", ((("The QA database is rebuilt from a production snapshot every Saturday at "
                    "02:00."), "03-06", F),
                   (("The QA database is rebuilt from a production snapshot every Saturday at "
                    "02:00."), "04-17", F))),
    ("duplicate", (("The user is short-sighted.", "01-30", F),
                   ("The user is myopic.", "06-18", F))),
    ("duplicate", (("The user's salary lands on the 25th of each month.", "02-13", F),
                   ("I get paid on the 25th.", "03-22", F))),
    ("duplicate", ((("In the sync with Kwame it was agreed that Saoirse owns the onboarding "
                    "redesign."), "03-04", F),
                   ("Saoirse is responsible for the onboarding redesign.", "04-25", F))),
    ("duplicate", (("Gift cards can't be redeemed for cash.", "01-11", F),
                   ("No cash refunds on gift card balances.", "02-28", F))),
    ("duplicate", (("The household bins go out on Wednesday evenings.", "02-06", F),
                   ("Bin night is Wednesday.", "05-15", F))),
    ("duplicate", (("The user always travels with carry-on only.", "03-19", F),
                   ("The user never checks anything into the hold on flights.", "07-08", F))),
    ("duplicate", (("The frontend uses 2-space indentation.", "02-26", F),
                   ("Indent with two spaces in the frontend code.", "03-31", F),
                   ("Note to self: frontend indentation is two spaces.", "06-11", F))),
    ("duplicate", (("Dagny's husband Ruairi is a firefighter.", "04-08", F),
                   ("Ruairi, Dagny's husband, works for the fire service.", "07-17", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("The user has a tattoo.", "01-14", F),
                    ("The user has a small compass tattoo on the left wrist.", "04-22", FD))),
    ("refinement", (("Benedikt is learning Icelandic.", "02-09", F),
                    ("Benedikt is learning Icelandic on Duolingo for a trip to Reykjavik.",
                     "05-06", FD))),
    ("refinement", (("The partner API uses JWT auth.", "01-22", F),
                    (("The partner API authenticates requests with RS256-signed JWTs that "
                     "expire after 15 minutes."), "03-18", FD))),
    ("refinement", (("Damaged items are replaced free of charge.", "02-17", F),
                    (("A damaged item is replaced at no cost if the customer sends a photo of "
                     "the damage within 7 days."), "04-29", FD))),
    ("refinement", (("The user has asthma.", "03-02", F),
                    ("The user has mild asthma and uses a blue inhaler before exercise.",
                     "06-24", FD))),
    ("refinement", ((("Lorcan and Imogen met about the Q3 budget. Imogen said Q3 marketing "
                     "spend will be capped at 40,000 euros."), "04-02", (("c",), ("f", "d"))),
                    ("Q3 marketing spend has a cap.", "05-10", F))),
    ("refinement", (("The user has a vegetable patch.", "03-09", F),
                    (("The user grows tomatoes and courgettes in a raised vegetable patch by "
                     "the shed."), "07-01", FD))),
    ("refinement", ((("Eamon is going to Patagonia in the spring to hike the W Trek with his "
                     "brother."), "01-27", FD),
                    ("Eamon is going to Patagonia in the spring.", "02-24", F))),
    ("refinement", (("The user has a stocks and shares ISA.", "02-04", F),
                    (("The user has a stocks and shares ISA with Vanguard, topped up with 300 "
                     "pounds a month."), "05-19", FD))),
    ("refinement", (("The test suite runs in GitHub Actions.", "01-18", F),
                    (("Every push triggers the test suite on GitHub Actions, split across four "
                     "parallel runners."), "04-10", FD))),
    ("refinement", (("Rustam is a grandfather.", "03-15", F),
                    ("Rustam has three grandchildren, all under five.", "06-03", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("Pilar is based in Ghent.", "02-03", OLD),
                ("Pilar is based in Antwerp.", "09-14", NEW))),
    ("update", (("Vikram is a product manager at Northbeam.", "01-21", OLD),
                ("Vikram left Northbeam for a job at Copperline.", "06-12", NEW))),
    ("update", (("The mobile app targets React Native 0.72.", "02-08", OLD),
                ("The mobile app was upgraded to React Native 0.74.", "07-03", NEW))),
    ("update", (("The payments webhook posts to /hooks/v1/payments.", "01-29", OLD),
                ("Since the migration the payments webhook endpoint is /hooks/v2/payments.",
                 "05-21", NEW))),
    ("update", (("Ottilie is single.", "01-19", OLD),
                ("Ottilie has a boyfriend called Matthias.", "08-02", NEW))),
    ("update", (("Kwame is engaged to Efua.", "02-12", OLD),
                ("Kwame and Efua got married at the end of August.", "09-03", NEW))),
    ("update", (("The user's daily step goal is 8,000.", "01-06", OLD),
                ("The user raised the daily step goal to 10,000.", "04-16", NEW))),
    ("update", (("Severin's PhD defence is scheduled for 12 June.", "03-07", OLD),
                ("Severin's PhD defence was moved from 12 June to 3 July.", "05-28", NEW))),
    ("update", (("The user prefers paper books to e-readers.", "01-13", OLD),
                ("The user reads everything on a Kindle.", "08-19", NEW))),
    ("update", (("The spare house key is under the blue flowerpot.", "02-22", OLD),
                (("The spare key is with the neighbour at number 12 now, not under the "
                 "flowerpot."), "06-06", NEW))),
    ("update", (("The user takes 50 mg of sertraline daily.", "01-25", OLD),
                ("The user's sertraline dose was increased to 100 mg.", "04-30", NEW))),
    ("update", (("The user's mortgage rate is 4.1% fixed.", "02-15", OLD),
                ("The user's mortgage rate is 3.6% fixed.", "10-02", NEW))),
    ("update", (("The student discount is 10%.", "03-05", OLD),
                ("The student discount went up to 15%.", "06-27", NEW))),
    ("update", (("Deploys to production go out from Jenkins.", "01-31", OLD),
                ("We retired Jenkins and deploy with Buildkite instead.", "05-13", NEW))),
    ("update", (("Imogen leads the search relevance team.", "01-23", OLD),
                ("IIRC Imogen heads up search relevance.", "03-12", OLD),
                ("Imogen stepped down as search relevance lead and Lorcan took over.", "07-21",
                 NEW))),
    ("update", (("The team agreed to drop the Windows build.", "02-27", OLD),
                (("The Windows build stays after all, because two large customers still "
                 "need it."), "04-19", NEW))),
    ("update", (("Marisol drives a 2015 Skoda Fabia.", "03-14", OLD),
                ("Marisol sold her Skoda Fabia and bought a Toyota Yaris hybrid.", "08-09",
                 NEW))),
    ("update", (("Fenna works as a barista at Kaffebar Noord.", "01-08", OLD),
                ("Fenna is a junior accountant at a firm in Haarlem.", "07-24", NEW))),
    # -- contradiction: two values written at the same instant --------------------------------
    ("contradiction", (("Ludmila's only daughter is called Vera.", "04-04", A),
                       ("Ludmila's only daughter is named Nadia.", "04-04", B))),
    ("contradiction", (("The user was born in Cork.", "02-18", A),
                       ("The user was born in Limerick.", "02-18", B))),
    ("contradiction", (("The production database runs on port 5433.", "05-09", A),
                       ("Production DB listens on port 6432.", "05-09", B))),
    ("contradiction", (("The returns address is Unit 7, Larkfield Industrial Estate.",
                        "03-26", A),
                       ("Returns should be sent to Unit 12, Larkfield Industrial Estate.",
                        "03-26", B))),
    ("contradiction", (("Anselm said the beta will launch in September.", "06-13", A),
                       ("Anselm said the beta will launch in October.", "06-13", B))),
    ("contradiction", (("The washing machine is a Bosch.", "07-11", A),
                       ("The washing machine is a Miele.", "07-11", B))),
    ("contradiction", (("The user's credit card limit is 5,000 pounds.", "08-21", A),
                       ("The user's credit card has a 3,000 pound limit.", "08-21", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", ((("Ticket SUP-5521: the customer can't log in after changing their "
                           "email address."), "04-09", A),
                          (("Ticket SUP-5527: the customer can't log in after turning on "
                           "two-factor authentication."), "04-11", B))),
    ("distinct_related", (("Version 2.8 of the SDK removed the legacy upload endpoint.",
                           "03-20", A),
                          ("Version 2.9 of the SDK removed the legacy search endpoint.",
                           "05-16", B))),
    ("distinct_related", (("Lab 3.12 has the spare oscilloscope.", "02-14", A),
                          ("Lab 3.14 has the spare soldering station.", "02-14", B))),
    ("distinct_related", (("Amadou broke a finger playing five-a-side last week.", "03-14",
                           A),
                          ("Amadou cracked a rib playing five-a-side last week.",
                           "06-20", B))),
    ("distinct_related", (("Henrike is fluent in Danish.", "01-17", A),
                          ("Henrike reads Finnish but doesn't speak it.", "04-23", B))),
    ("distinct_related", (("Direct debit DD-0419 pays the water bill.", "05-01", A),
                          ("Direct debit DD-0420 pays the broadband bill.", "05-01", B))),
    ("distinct_related", (("The lint job fails on branches that touch the migrations folder.",
                           "06-04", A),
                          ("The e2e job fails on branches that touch the checkout folder.",
                           "06-05", B))),
    ("distinct_related", (("Saoirse presented the churn analysis to the board last week.",
                           "02-23", A),
                          ("Saoirse presented the pricing analysis to the board last week.",
                           "05-24", B))),
    ("distinct_related", (("The smoke alarm in the kitchen is wired to the mains.", "03-23",
                           A),
                          ("The smoke alarm on the landing runs on a 9V battery.", "03-23",
                           B))),
    ("distinct_related", (("Booking ref QX7H2L is the outbound flight to Tbilisi.", "07-05",
                           A),
                          ("Booking ref QX9M4P is the return flight from Tbilisi.", "07-05",
                           B),
                          ("Booking ref TB3301 is the guesthouse in Kazbegi.", "07-06", C))),
    ("distinct_related", (("The user's left shoulder was operated on in 2019.", "02-11", A),
                          ("The user's right shoulder has tendonitis.", "08-14", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Tomasz had a tooth filled this morning.", "02-06", A),
                  ("Tomasz had another filling done today.", "05-22", B))),
    ("temporal", (("Someone flushed the Redis cache by accident yesterday.", "03-28", A),
                  ("The Redis cache was flushed by mistake again yesterday.", "06-19", B))),
    ("temporal", (("On 11 April the user had the chimney swept.", "04-12", A),
                  ("On 19 September the chimney was swept again.", "09-20", B))),
    ("temporal", (("Nkechi ran a cooking class for the team last week.", "04-26", A),
                  ("Nkechi ran another cooking class last week.", "07-12", B))),
    ("temporal", (("The office gate barrier got stuck this morning.", "05-07", A),
                  ("The gate barrier at the office jammed again today.", "05-30", B),
                  ("Gate barrier stuck yesterday, third time this quarter.", "06-17", C))),
    ("temporal", (("Jarrah flew to Hobart to see his mum last weekend.", "03-11", A),
                  ("Jarrah went back to Hobart to see his mum last weekend.", "08-26", B))),
    ("temporal", (("The user filed the quarterly VAT return yesterday.", "07-09", A),
                  ("On 14 October the user filed the quarterly VAT return.", "10-15", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Perpetua is terrified of wasps.", "02-05", F),)),
    ("unrelated", (("The user keeps a sourdough starter called Doughbert.", "04-18", F),)),
    ("unrelated", (("We can't ship lithium batteries to the Channel Islands.", "05-05", F),)),
    ("unrelated", (("The user likes their desk facing a window.", "06-09", F),)),
    ("unrelated", (("Quentin volunteers as a lifeguard at the lido on Sundays.", "07-27",
                    F),)),
    ("unrelated", (("fwiw the metrics dashboard shows every timestamp in UTC.", "09-08",
                    F),)),
)

__all__ = ["SEALED_HAND"]
