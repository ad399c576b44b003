"""The ``spare`` part of the decision set: hand-written groups only (issue #32).

A seventh held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden`` and ``withheld``: its subjects, holders, names and wordings appear nowhere in the
other parts or the template families, and it was written blind on 2026-11-29, as the stores of
agents people use would hold them, without reading the rule agents, their tests or the
documented failures. It covers a veterinary clinic's notes (patients, allergies, doses,
check-ups), a wedding planner (guests, caterer, venue, tables), a bookshop's inventory
assistant (stock, distributors, orders, opening hours), a research lab's instrument bookings
(microscopes, the NMR, the cell sorter, rooms, rates), a language-learning app (goals, streaks,
reminders, decks), a landlord's property notes (flats, rents, deposits, certificates, agents),
a restaurant's supplier notes (fish, eggs, dairy, wine, the kitchen team), a DevOps on-call
runbook (alerts, services, regions, paging) and a personal reading list, with a parent's
school-logistics notes. Styles: full sentences, terse notes ("Wolf Hall: already read.",
"Walk-in cooler temperature: 3 degrees."), first person ("I've bumped my daily goal up to 20
minutes."), openers ("Vet note:", "Runbook:", "Heads up:", "Per Ana,"), abbreviations ("PE",
"NMR", "DB", "Tue and Fri"), call and meeting notes whose first sentence names the call.
Duplicates mix paraphrases with reordered clauses and different frames, three-member groups and
one exact copy; refinements add details in the same sentence or in a sentence of their own,
with the detailed memory sometimes first; updates mix change wordings ("reduced", "dropped ...
instead", "moved", "no longer", "relocated", "bumped up", "raised", "let go", "now", "took
over") with a new value restated months later with no change word; contradictions are two
values saved at the same instant; distinct groups differ by a patient number, a table, an order
number, a research group, a flat, a month, an alert or a child, sometimes by that alone;
temporal groups repeat an event on different days, with relative words and absolute dates.
Every group has one outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part spare``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

SPARE_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Bramble the spaniel is allergic to chicken.", "01-11", F),
                   ("Vet note: no chicken-based food for Bramble, it sets off his allergy.",
                    "04-16", F))),
    ("duplicate", (("Aoife and Tobiah want an unplugged ceremony with no phones.", "02-03",
                    F),
                   (("No phones during the vows: the couple asked for the ceremony to be "
                     "unplugged."), "03-21", F),
                   (("Guests will be asked to put their phones away for the ceremony, per Aoife "
                    "and Tobiah."), "05-30", F))),
    ("duplicate", (("We reorder a title once stock falls to two copies.", "01-15", F),
                   ("Reorder point for any book: 2 copies left on the shelf.", "06-02", F))),
    ("duplicate", (("The confocal microscope can only be booked in four-hour slots.", "02-08",
                    F),
                   ("Confocal bookings come in blocks of 4 hours.", "03-12", F))),
    ("duplicate", (("I want my daily practice reminder at 7 in the evening.", "01-26", F),
                   ("Send the user's practice reminder at 19:00 every day.", "04-04", F))),
    ("duplicate", (("The gutters at the Linden Terrace flat are cleared every October.",
                    "02-14", F),
                   ("Annual gutter clearing for Linden Terrace: October.", "07-09", F))),
    ("duplicate", ((("Supplier call with Hamid at Tidewell Fisheries. He confirmed they "
                     "deliver on Tuesdays and Fridays."), "01-20", CF),
                   ("Fish from Tidewell arrives twice a week, Tue and Fri.", "03-03", F))),
    ("duplicate", (("The thumbnailer service can be restarted without paging anyone.", "02-22",
                    F),
                   ("Runbook: no need to page anybody before you restart thumbnailer.",
                    "05-14", F))),
    ("duplicate", (("The user has already read Wolf Hall.", "01-07", F),
                   ("Wolf Hall: already read.", "04-25", F))),
    ("duplicate", (("Cassius needs his PE kit every Wednesday.", "01-08", F),
                   ("Wednesday is PE day for Cassius, so pack his kit.", "02-19", F),
                   ("Heads up: Cassius's PE kit goes in his bag on Wednesdays.", "06-11", F))),
    ("duplicate", (("Mortimer the tortoise is weighed before and after hibernation.", "03-06",
                    F),
                   ("Mortimer the tortoise is weighed before and after hibernation.", "10-22",
                    F))),
    ("duplicate", (("The couple's colour scheme is sage green and ivory.", "02-27", F),
                   ("Ivory and sage: those are the wedding colours.", "04-30", F))),
    ("duplicate", ((("Only facility staff refill the helium in the NMR magnet, users never do "
                     "it."), "03-19", F),
                   (("Topping up the NMR's liquid helium is a job for facility staff, never "
                    "for users."), "08-07", F))),
    ("duplicate", (("Our walk-in fridge is kept at 3°C.", "01-29", F),
                   ("Walk-in cooler temperature: 3 degrees.", "05-05", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Quince the rabbit has dental problems.", "01-17", F),
                    (("Quince, the lop rabbit, has overgrown molars that need burring every "
                      "eight weeks."), "03-04", FD))),
    ("refinement", (("The wedding ceremony will be held outdoors.", "02-05", F),
                    (("The ceremony is outdoors in the walled garden at Ashcombe Barn, with the "
                      "orangery as the wet-weather backup."), "04-12", FD))),
    ("refinement", ((("Signed first editions are kept in the locked cabinet behind the till, "
                      "and only the manager holds the key."), "02-10", FD),
                    ("Signed first editions are kept locked away.", "05-21", F))),
    ("refinement", (("The mass spectrometer needs training before use.", "01-23", F),
                    (("Before using the mass spectrometer you need the two-hour induction from "
                      "Teodora, run on the first Monday of each month."), "03-15", FD))),
    ("refinement", (("The user studies Hungarian on the app.", "01-04", F),
                    (("The user studies Hungarian on the app, aiming for the A2 exam in "
                      "spring."), "02-16", FD))),
    ("refinement", (("The tenant of Flat 2 at Pollard House has a cat.", "02-12", F),
                    (("Flat 2's tenant at Pollard House keeps a cat. Her pet clause came with "
                      "an extra 200-pound deposit."), "06-18", F_D))),
    ("refinement", (("Our olive oil comes from a Cretan co-op.", "01-31", F),
                    (("Olive oil: a co-op near Chania in Crete, shipped in 20-litre tins each "
                     "quarter."), "04-09", FD))),
    ("refinement", (("ledger-sync alerts go to the payments on-call.", "02-20", F),
                    (("ledger-sync alerts page the payments on-call first and escalate to the "
                      "platform lead after 15 minutes without an ack."), "05-27", FD))),
    ("refinement", ((("I want to read all of Le Guin's Earthsea books, in publication order."),
                     "03-01", FD),
                    ("The user wants to read the Earthsea series.", "06-06", F))),
    ("refinement", (("Elodie has swimming lessons after school.", "01-13", F),
                    (("Elodie has swimming lessons after school on Thursdays at the leisure "
                      "centre, with pickup at 17:15."), "01-28", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("Pilchard the cat gets 10 mg of prednisolone daily.", "02-01", OLD),
                ("Pilchard's prednisolone was reduced to 5 mg a day.", "04-18", NEW))),
    ("update", (("The wedding guest list stands at 120.", "01-10", OLD),
                ("Final head count for the wedding: 96 guests.", "05-16", NEW))),
    ("update", (("Fennel & Thyme are catering the wedding.", "01-24", OLD),
                (("Planning meeting with Aoife and Tobiah. They dropped Fennel & Thyme and "
                  "booked Saltmarsh Kitchen to cater instead."), "03-26", CNEW))),
    ("update", (("The shop's main distributor is Mercator Books.", "02-06", OLD),
                ("We moved our main account from Mercator Books to Bellwether Distribution.",
                 "07-15", NEW))),
    ("update", (("The bookshop opens from 11 to 4 on Sundays.", "01-18", OLD),
                ("The bookshop no longer opens on Sundays.", "06-24", NEW))),
    ("update", (("The flow cytometer lives in room B214.", "02-13", OLD),
                ("The flow cytometer has been relocated to room C107.", "09-10", NEW))),
    ("update", (("An hour on the electron microscope costs internal groups 35 pounds.",
                 "01-22", OLD),
                ("Internal rate for the electron microscope: 42 pounds per hour.", "08-13",
                 NEW))),
    ("update", (("The user's daily goal on the app is 10 minutes.", "01-05", OLD),
                ("I've bumped my daily goal up to 20 minutes.", "03-29", NEW))),
    ("update", (("The user's streak on the app is 41 days.", "02-24", OLD),
                ("The user missed a day and the app streak is back to 0.", "04-02", NEW))),
    ("update", (("Rent for Flat 4 at Pollard House is 950 pounds a month.", "01-19", OLD),
                ("Flat 4 at Pollard House had its rent raised to 1,010 pounds a month.",
                 "08-28", NEW))),
    ("update", (("The letting agent for 17 Cranmore Road is Harcourt Lettings.", "02-09",
                 OLD),
                ("Harcourt Lettings was let go, I manage 17 Cranmore Road myself now.",
                 "07-30", NEW))),
    ("update", (("Eggs come from Cawdor Farm.", "01-27", OLD),
                ("We now buy our eggs from Sweetbriar Farm.", "05-09", NEW))),
    ("update", (("The head chef is Florian.", "01-06", OLD),
                ("Florian runs the kitchen as head chef.", "03-02", OLD),
                ("Orla took over as head chef after Florian left.", "09-18", NEW))),
    ("update", (("Disk usage alerts on the build runners fire at 80%.", "02-15", OLD),
                ("Build runner disk alert threshold raised to 90%.", "06-20", NEW))),
    ("update", (("The on-call runbooks live in Confluence.", "01-14", OLD),
                ("On-call runbooks are kept in the ops repo as Markdown.", "10-03", NEW))),
    ("update", (("Rufus finishes school at 3:10pm.", "01-09", OLD),
                ("Rufus now finishes school at 3:25pm.", "09-05", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("The clinic's X-ray machine was installed in 2019.", "03-08", A),
                       ("The X-ray unit at the clinic dates from 2021.", "03-08", B))),
    ("contradiction", (("The reception venue has an 11pm curfew.", "04-15", A),
                       ("The reception venue's curfew is midnight.", "04-15", B))),
    ("contradiction", (("We have six copies of The Salt Path in stock.", "05-03", A),
                       ("Stock count for The Salt Path: 9 copies.", "05-03", B))),
    ("contradiction", (("Per Ana, the cryostat is in room A009.", "02-21", A),
                       ("The cryostat is kept in the basement cold room.", "02-21", B))),
    ("contradiction", (("The deposit for the Orchard Mews house sits with the DPS.", "03-23",
                        A),
                       ("The Orchard Mews deposit is registered with mydeposits.", "03-23",
                        B))),
    ("contradiction", (("The dairy order has to be placed by 2pm the day before.", "06-04", A),
                       ("Dairy orders must be in by noon the day before.", "06-04", B))),
    ("contradiction", (("geo-tiler's primary database is in us-east-2.", "04-26", A),
                       ("The geo-tiler primary DB runs in ap-southeast-2.", "04-26", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Patient 10482, a whippet, is due back for a stitch check.",
                           "05-06", A),
                          ("Patient 10488, a whippet, is due back for a stitch check.",
                           "05-07", B))),
    ("distinct_related", (("Table 6 seats the bride's university friends.", "05-23", A),
                          ("Table 9 seats the groom's university friends.", "05-23", B))),
    ("distinct_related", (("Order PO-5531: 40 copies of Orbital, arriving Thursday.", "03-18",
                           A),
                          ("Order PO-5536: 40 copies of Orbital, arriving Thursday.", "03-25",
                           B))),
    ("distinct_related", ((("The cell sorter is reserved for the Adeyemi group every Monday "
                           "morning."), "02-26", A),
                          (("The cell sorter is reserved for the Marchetti group every "
                            "Tuesday morning."), "02-26", B))),
    ("distinct_related", (("The user has a vocabulary deck for kitchen words.", "03-14", A),
                          ("The user has a vocabulary deck for train-station words.", "04-01",
                           B))),
    ("distinct_related", (("The gas safety certificate for Flat 1 expires in March.", "01-16",
                           A),
                          ("The gas safety certificate for Flat 3 expires in March.", "01-16",
                           B))),
    ("distinct_related", (("Corbel Wines billed 1,240 pounds for the March delivery.", "04-03",
                           A),
                          ("Corbel Wines billed 1,310 pounds for the April delivery.", "05-02",
                           B))),
    ("distinct_related", ((("Alert ALR-207 fires when the orders-consumer queue passes 5,000 "
                           "messages."), "06-12", A),
                          (("Alert ALR-208 fires when orders-consumer lag goes over 10 "
                            "minutes."), "06-12", B),
                          ("Alert ALR-209 fires when orders-consumer has no healthy replicas.",
                           "06-13", C))),
    ("distinct_related", (("The user loved Piranesi.", "02-02", A),
                          ("The user loved Klara and the Sun.", "07-19", B))),
    ("distinct_related", ((("Elodie's class trip to the science museum needs a signed form."),
                           "04-22", A),
                          ("Rufus's class trip to the science museum needs a signed form.",
                           "04-24", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Nutmeg the guinea pig came in with an eye infection today.", "03-11", A),
                  ("On 4 September Nutmeg was back with another eye infection.", "09-06",
                   B))),
    ("temporal", (("Cake tasting with Aoife and Tobiah went well today.", "02-17", A),
                  (("Second cake tasting with the couple last weekend, they chose lemon and "
                   "elderflower."), "03-05", B))),
    ("temporal", (("The card reader at the till froze during the lunch rush today.", "05-11",
                   A),
                  ("The till's card reader froze again yesterday afternoon.", "08-21", B))),
    ("temporal", (("The minus-80 freezer alarm went off tonight.", "04-08", A),
                  ("On 17 May the minus-80 freezer alarm sounded again.", "05-18", B))),
    ("temporal", (("The image CDN returned 502s for twenty minutes this morning.", "07-02",
                   A),
                  ("More 502s from the image CDN yesterday, about ten minutes.", "08-15", B),
                  ("On 2 December the image CDN was down for an hour.", "12-03", C))),
    ("temporal", (("Rufus forgot his lunchbox at school today.", "02-28", A),
                  ("Rufus left his lunchbox at school again last week.", "03-20", B))),
    ("temporal", (("The user practised speaking with the app's AI tutor today.", "03-10", A),
                  ("Another speaking session with the AI tutor last weekend.", "04-15", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("The clinic's front desk closes for lunch between 1 and 2.", "04-19",
                    F),)),
    ("unrelated", ((("The groom's grandmother uses a wheelchair, so every venue on the day "
                     "needs step-free access."), "03-27", F),)),
    ("unrelated", (("Pre-orders for the autumn poetry anthology go in the blue binder.",
                    "08-09", F),)),
    ("unrelated", (("The centrifuge rotor log hangs on a clipboard by the lab door.", "06-26",
                    F),)),
    ("unrelated", (("I skip books longer than 600 pages.", "05-12", F),)),
    ("unrelated", (("Runbook: the sandbox cluster is wiped every Sunday night.", "07-08",
                    F),)),
)

__all__ = ["SPARE_HAND"]
