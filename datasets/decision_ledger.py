"""The ``ledger`` part of the decision set: hand-written groups only (issue #32).

A tenth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare``, ``vault`` and ``keep``: its subjects, holders, names and
wordings appear nowhere in the other parts or the template families, and it was written blind
on 2026-11-29, as the stores of agents people use would hold them, without reading the rule
agents, their tests or the documented failures. It covers a small accounting practice's notes
(clients, VAT returns, year ends, fees, bookkeeping software), a theatre company's notes (the
spring production, cast, the stage manager, tickets, rehearsals), a ferry operator's notes
(sailings, fares, vessels, check-in, weather), a museum's collections desk (objects and their
accession numbers, loans, the textile store, the conservator), a climbing gym's notes (the lead
wall, route setting, auto-belays, memberships, inductions), a home-brewer's kombucha log (sugar,
jars, ferments, batches, the SCOBY hotel), a youth football club's notes (teams, coaches,
pitches, kick-off times, DBS checks), a food bank's warehouse notes (distribution days,
parcels, volunteers, partner agencies, donations), a taxi firm's dispatch notes (cars, fares,
the night rate, licences, lost property) and a campsite's notes (pitches, hook-ups, prices,
quiet hours, the shower block). Styles: full sentences, terse notes ("Practice bookkeeping
software: Tallybook.", "Millbeck U9s: 7v7, half pitch."), first person ("I use 80 g of sugar
per litre of tea for my kombucha."), openers ("FYI", "Note:", "Practice rule:", "Collections
note:", "Box office note:", "Dispatch note:"), abbreviations ("VAT", "RH", "U12s", "DBS",
"MV", "3G", "booch"), call and meeting notes whose first sentence names the call. Duplicates
mix paraphrases with synonyms, reordered clauses, different frames and number forms ("six
weeks" / "42 days", "20 minutes" / "twenty minutes", "7-a-side" / "seven-a-side" / "7v7"),
three-member groups and one exact copy; refinements add details in the same sentence or in a
sentence of their own, with the detailed memory sometimes first; updates mix change wordings
("migrated ... from ... to", "has had to pull out, so ... takes over", "was raised", "put ...
up to", "since ... retired ... contracted out", "now", "has left", "upgraded", "is stepping
back ... has taken over", "handed ... to") with a new value restated months later with no
change word, and two three-member groups; contradictions are two values saved at the same
instant; distinct groups differ by a client, a cast member and role, a vessel, an accession
number, an activity, a batch, a team and ground, a partner agency, a car or a pitch,
sometimes by that alone; temporal groups repeat an event on different days, with relative
words and absolute dates. Every group has one outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part ledger``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

LEDGER_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", ((("Practice rule: every VAT return is reviewed by a second accountant before "
                     "it's filed."), "01-11", F),
                   ("No VAT return leaves the office until another accountant has checked it.",
                    "03-22", F),
                   (("Note: a different accountant looks over each VAT return ahead of "
                     "submission."), "08-05", F))),
    ("duplicate", (("Araminta Marchbanks' accounting year ends on the last day of March.",
                    "02-03", F),
                   ("Year end for Araminta Marchbanks: end of March.", "06-14", F))),
    ("duplicate", (("Lanternfall Players rehearse on Tuesday and Thursday evenings.", "01-07",
                    F),
                   ("Rehearsal nights for Lanternfall are Tues and Thurs.", "02-25", F))),
    ("duplicate", ((("Foot passengers on Skerrow Ferries have to check in at least 20 minutes "
                     "before they sail."), "02-12", F),
                   (("FYI walk-on passengers must be checked in no later than twenty minutes "
                     "ahead of departure."), "05-19", F))),
    ("duplicate", (("Dogs travel free on Skerrow Ferries but must stay on the open deck.",
                    "03-08", F),
                   (("Skerrow Ferries doesn't charge for dogs, though they're kept out on the "
                     "outside deck."), "07-30", F))),
    ("duplicate", ((("Textiles in the Gillingdale Museum stores are kept at 50% relative "
                     "humidity."), "01-23", F),
                   (("Collections note: the RH target for Gillingdale's textile store is 50 per "
                     "cent."), "04-29", F))),
    ("duplicate", ((("New members can't use the lead wall at Cragworks until they've passed a "
                     "lead assessment."), "01-19", F),
                   (("Lead climbing at Cragworks is open only to people who have passed the lead "
                     "test."), "03-30", F),
                   ("Cragworks rule: no leading without a lead assessment pass.", "09-07", F))),
    ("duplicate", (("The Cragworks bouldering cave is reset every six weeks.", "02-17", F),
                   ("Route setters strip and reset the bouldering cave every 42 days.", "06-08",
                    F))),
    ("duplicate", (("I use 80 g of sugar per litre of tea for my kombucha.", "01-28", F),
                   ("Kombucha ratio: 80 grams of sugar to every litre of tea.", "04-16", F))),
    ("duplicate", (("Every coach at Millbeck Rovers needs an in-date DBS check.", "02-04", F),
                   ("Millbeck Rovers won't let anyone coach without a current DBS certificate.",
                    "08-12", F))),
    ("duplicate", (("Millbeck's under-9s play 7-a-side on half pitches.", "03-02", F),
                   ("Our U9 team plays seven-a-side matches on a half-size pitch.", "05-05", F),
                   ("Millbeck U9s: 7v7, half pitch.", "09-21", F))),
    ("duplicate", (("Calderbrook Food Bank can't accept any food that's past its use-by date.",
                    "01-13", F),
                   (("Volunteer briefing at Calderbrook. Donations past their use-by date get "
                     "turned away."), "05-09", CF))),
    ("duplicate", ((("Amberline Cars charges a flat £48 for a run to the airport from anywhere "
                     "in town."), "02-23", F),
                   ("Airport runs from town are a fixed £48 fare at Amberline.", "06-30", F))),
    ("duplicate", (("Quiet hours at Pennock Farm Campsite are 10:30pm to 7am.", "04-12", F),
                   ("Quiet hours at Pennock Farm Campsite are 10:30pm to 7am.", "07-19", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Quillfeather Joinery Ltd pays us a fixed monthly fee.", "01-25", F),
                    (("Quillfeather Joinery Ltd pays us a fixed monthly fee of £180 plus VAT, "
                      "which covers payroll for its four staff."), "03-05", FD))),
    ("refinement", ((("Lanternfall's spring production is The Salt Orchard, a new play by Cosmo "
                      "Redfearn, opening at the Dunmere Corn Exchange."), "01-31", FD),
                    ("Lanternfall's spring show is The Salt Orchard.", "02-27", F))),
    ("refinement", (("MV Skerrow Lass is in dry dock for her annual refit.", "10-02", F),
                    (("The Skerrow Lass has gone into dry dock for her yearly refit. The work is "
                      "at Corran Marine's yard in Port Ardvane and should take three weeks."),
                     "10-09", F_D))),
    ("refinement", (("Object 1987.44.3 is out on loan.", "02-08", F),
                    (("Object 1987.44.3, the Brassington tea urn, is out on loan to the Harlow "
                      "Mill Heritage Centre until the end of the year."), "02-22", FD))),
    ("refinement", (("The auto-belays at Cragworks are inspected every month.", "03-18", F),
                    (("The auto-belays at Cragworks are inspected monthly by the duty manager, "
                      "and any unit that fails is taken off the wall and sent back to the "
                      "manufacturer."), "05-13", FD))),
    ("refinement", ((("I keep my SCOBY hotel in the pantry, in a 2-litre jar that I top up with "
                      "strong starter liquid once a month."), "02-11", FD),
                    ("My SCOBY hotel lives in the pantry.", "04-20", F))),
    ("refinement", (("The U12s train at Crowther Park.", "01-21", F),
                    (("Millbeck's U12s do their training at Crowther Park. Sessions are "
                      "Wednesdays from 6 to 7:15pm on the 3G pitch behind the pavilion."),
                     "02-14", F_D))),
    ("refinement", (("Calderbrook Food Bank opens for distribution on Fridays.", "02-02", F),
                    (("Calderbrook Food Bank opens for distribution on Fridays from 12 to 3 at "
                      "St Aldhelm's church hall, for people with a referral voucher."), "03-14",
                     FD))),
    ("refinement", (("Amberline's car 14 is wheelchair accessible.", "03-21", F),
                    (("Dispatch note: car 14 is our wheelchair-accessible vehicle, a Peugeot "
                      "e-Traveller with a rear ramp and room for two wheelchairs."), "04-19",
                     FD))),
    ("refinement", (("Pennock Farm's hardstanding pitches have electric hook-ups.", "03-09", F),
                    (("The hardstanding pitches at Pennock Farm come with an electric hook-up. "
                      "Hook-up is 16 amp and costs £5 a night on top of the pitch fee."),
                     "03-27", F_D))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("Practice bookkeeping software: Tallybook.", "01-06", OLD),
                ("We migrated every client from Tallybook to Copperleaf Books over the summer.",
                 "09-03", NEW))),
    ("update", (("Araminta Marchbanks pays £650 for her self-assessment return.", "02-21",
                 OLD),
                ("Self-assessment fee for Araminta Marchbanks: £720.", "11-12", NEW))),
    ("update", (("The stage manager for The Salt Orchard is Morag Thackwray.", "02-01", OLD),
                (("Production meeting for The Salt Orchard. Morag Thackwray has had to pull out, "
                  "so Bastian Mwangi takes over as stage manager."), "03-20", CNEW))),
    ("update", (("Tickets for The Salt Orchard are £16.", "02-10", OLD),
                ("Box office note: full-price seats for The Salt Orchard cost £16.", "03-04",
                 OLD),
                ("The Salt Orchard's full ticket price was raised to £18.", "04-08", NEW))),
    ("update", (("The first sailing from Port Ardvane to Inchkeld leaves at 07:10.", "01-04",
                 OLD),
                ("The first Port Ardvane to Inchkeld sailing departs at 06:50.", "05-27",
                 NEW))),
    ("update", (("A car on the Inchkeld crossing costs £34 return.", "01-26", OLD),
                ("Skerrow Ferries put the Inchkeld car fare up to £39 return.", "06-01", NEW))),
    ("update", (("Gillingdale Museum's conservator is Henrietta Norgrove.", "01-09", OLD),
                (("Since Henrietta Norgrove retired, Gillingdale's conservation work has been "
                  "contracted out to Ellsmere Conservation Studio."), "07-15", NEW))),
    ("update", (("A Cragworks adult monthly membership costs £52.", "01-02", OLD),
                ("Adult monthly membership at Cragworks is now £56.", "08-01", NEW))),
    ("update", (("Head route setter at Cragworks: Obadiah Mbeki.", "02-15", OLD),
                ("Obadiah has left Cragworks and Linnea Vasquez is head setter.", "06-22",
                 NEW))),
    ("update", (("I ferment my kombucha in a 3-litre glass jar.", "01-14", OLD),
                ("I've upgraded to a 6-litre jar with a tap for the kombucha.", "05-23", NEW))),
    ("update", (("My kombucha's first ferment runs 10 days.", "02-18", OLD),
                ("I let the booch's first ferment go for 14 days.", "10-20", NEW))),
    ("update", (("The U12s are coached by Declan Farrow.", "01-08", OLD),
                (("Call with the Millbeck committee. Declan Farrow is stepping back, and "
                  "Priyanka Sandoval has taken over the U12s."), "05-29", CNEW))),
    ("update", (("Calderbrook's warehouse coordinator is Bronwen Tegid.", "01-17", OLD),
                ("Bronwen Tegid handed the warehouse coordinator role to Roderick Vanstone.",
                 "07-09", NEW))),
    ("update", (("Each Calderbrook food parcel is meant to last a household three days.",
                 "02-28", OLD),
                ("Calderbrook parcels are now made up to last a household five days.", "09-26",
                 NEW))),
    ("update", (("Amberline's night rate starts at 11pm.", "03-01", OLD),
                ("Night rate at Amberline kicks in from 10pm.", "08-16", NEW))),
    ("update", (("A tent pitch for two adults is £22 a night at Pennock Farm.", "01-27", OLD),
                ("Two adults in a tent: £22 per night at Pennock Farm.", "04-04", OLD),
                ("A tent pitch for two adults at Pennock Farm costs £25 a night.", "12-02",
                 NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", ((("Quillfeather Joinery's VAT quarters end in March, June, September and "
                         "December."), "04-15", A),
                       (("Quillfeather Joinery is on VAT quarters ending January, April, July and "
                         "October."), "04-15", B))),
    ("contradiction", (("The Salt Orchard runs 2 hours 10 minutes including the interval.",
                        "03-26", A),
                       ("Running time of The Salt Orchard: 1 hour 55, interval included.",
                        "03-26", B))),
    ("contradiction", (("Gillingdale's textile store holds 1,140 objects.", "05-21", A),
                       ("There are 1,320 objects in the textile store at Gillingdale.", "05-21",
                        B))),
    ("contradiction", (("The Cragworks lead wall is 15 metres high.", "02-06", A),
                       ("Cragworks' lead wall stands 18 m tall.", "02-06", B))),
    ("contradiction", (("Millbeck Rovers' home games kick off at 10am.", "08-24", A),
                       ("Millbeck's home fixtures start at 10:30.", "08-24", B))),
    ("contradiction", (("Calderbrook Food Bank has 42 regular volunteers.", "06-04", A),
                       ("There are 57 volunteers on Calderbrook's regular rota.", "06-04", B))),
    ("contradiction", (("Amberline's operator licence is issued by Harrowby District Council.",
                        "05-08", A),
                       ("Amberline Cars is licensed by Wendham Borough Council.", "05-08", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Brannigan Florists owes £1,240 in VAT for the quarter.", "07-05",
                           A),
                          ("Harkaway Plumbing owes £1,240 in VAT for the quarter.", "07-05",
                           B))),
    ("distinct_related", (("Fergal Prewitt plays the orchard keeper in The Salt Orchard.",
                           "02-05", A),
                          ("Juniper Eggleton plays the eldest daughter in The Salt Orchard.",
                           "02-05", B),
                          ("Sorcha Abernathy plays the youngest daughter in The Salt Orchard.",
                           "02-09", C))),
    ("distinct_related", (("MV Skerrow Lass carries up to 32 cars.", "03-15", A),
                          ("MV Inchkeld Isle carries up to 32 cars.", "03-15", B))),
    ("distinct_related", ((("Object 1992.7.15 needs a condition report before it goes on "
                            "display."), "06-10", A),
                          (("Object 1992.7.51 needs a condition report before it goes on "
                            "display."), "06-10", B))),
    ("distinct_related", (("Inductions run on Saturday mornings at Cragworks.", "04-06", A),
                          ("Kids' club runs on Saturday mornings at Cragworks.", "04-06", B))),
    ("distinct_related", (("Batch 11 of my kombucha was flavoured with ginger and lime.",
                           "06-16", A),
                          ("Batch 12 of my kombucha was flavoured with raspberry and basil.",
                           "07-02", B))),
    ("distinct_related", (("The U10s play their home games at Crowther Park.", "03-12", A),
                          ("The U14s play their home games at Hallowfield Rec.", "03-12", B))),
    ("distinct_related", ((("Harbourside Women's Aid is a voucher-issuing partner of Calderbrook "
                            "Food Bank."), "04-25", A),
                          (("Tollgate Children's Centre is a voucher-issuing partner of "
                            "Calderbrook Food Bank."), "04-25", B))),
    ("distinct_related", (("Car 9's taxi plate expires in May.", "02-13", A),
                          ("Car 19's taxi plate expires in May.", "02-13", B))),
    ("distinct_related", (("Pitch 4 is a hardstanding pitch next to the shower block.", "03-29",
                           A),
                          ("Pitch 24 is a grass pitch down by the river.", "03-29", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("The fly bar jammed during the tech rehearsal tonight.", "03-10", A),
                  ("The fly bar stuck again in yesterday's matinee.", "03-17", B))),
    ("temporal", (("This morning's Inchkeld sailings were all cancelled for gales.", "01-16",
                   A),
                  (("On 29 January the Inchkeld crossing was called off again because of a "
                    "gale."), "01-30", B),
                  ("All Inchkeld sailings were off again yesterday in high winds.", "02-20",
                   C))),
    ("temporal", (("The textile store's humidity alarm went off last weekend.", "07-22", A),
                  ("On 3 August the RH alarm in the textile store tripped again.", "08-04",
                   B))),
    ("temporal", (("Found mould on the kombucha SCOBY this morning, binned the whole batch.",
                   "03-11", A),
                  ("Had to throw out another mouldy kombucha batch today.", "08-09", B))),
    ("temporal", (("Crowther Park was waterlogged today, so the U10 game was postponed.",
                   "01-20", A),
                  ("On 10 February the U10 fixture was postponed again, waterlogged pitch.",
                   "02-11", B))),
    ("temporal", (("Passenger left a phone in car 7 tonight, it's in the office safe.", "04-27",
                   A),
                  ("On 12 May another passenger left a phone in car 7.", "05-13", B))),
    ("temporal", (("The shower block ran out of hot water this morning.", "05-26", A),
                  ("No hot water in the shower block again today.", "08-18", B),
                  ("The shower block lost its hot water last week too.", "09-09", C))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Thistlecombe Accountancy shuts its office between Christmas and New Year.",
                    "10-30", F),)),
    ("unrelated", ((("Object photography for the Gillingdale collection is done by a "
                     "freelancer, Caspian Hollis."), "09-14", F),)),
    ("unrelated", (("My original kombucha culture came from my neighbour Margit Sundqvist.",
                    "01-03", F),)),
    ("unrelated", (("The supermarket collection bins are emptied by the Thursday volunteers.",
                    "03-16", F),)),
    ("unrelated", (("Amberline drivers must never take cash for an account job.", "06-12",
                    F),)),
    ("unrelated", (("Campfires at Pennock Farm are only allowed in the fire pits we provide.",
                    "06-18", F),)),
)

__all__ = ["LEDGER_HAND"]
