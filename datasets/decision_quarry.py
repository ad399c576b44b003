"""The ``quarry`` part of the decision set: hand-written groups only (issue #32).

A thirteenth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare``, ``vault``, ``keep``, ``ledger``, ``harbour`` and
``lantern``: its subjects, holders, names and wordings appear nowhere in the other parts or the
template families, and it was written blind on 2026-11-29, as the stores of agents people use
would hold them, without reading the rule agents, their tests or the documented failures. It
covers a farmhouse cheese maker's notes (the herd's milk, ageing, brines, trade prices, vats,
batches, the cave), a bike courier co-op's notes (pay day, cargo bikes, the dispatcher, drop
rates, riders, zones, weight limits), a small vineyard's notes (grape varieties, the lees,
pressing, the cellar door, hectares, blocks, frost candles), a locksmith's notes (car
lockouts, Euro cylinders, call-out fees, suppliers, clients' doors, extractors), a hospital
porter team's notes (shifts, the bleep, the supervisor, job sheets, staff, wheelchairs, the
lift), a church bell-ringing band's notes (practice night, the tenor, the ring, the tower
captain, ropes, quarter peals, visitors), a tree surgery firm's notes (wind limits, the chipper,
day rates, arisings, the stump grinder, job numbers, nesting season), a falconry centre's notes
(displays, feeding, a Harris hawk, hawk walks, birds, aviaries), a pottery kiln share's notes
(cones, shelf charges, glaze firings, clay, shelves, the breaker, the glaze room) and a wedding
band's notes (sets, first dances, the drummer, fees, bookings, the PA). Styles: full
sentences, terse notes ("Lockout call-out: £95.", "Cargo bikes at Chainring: 3."), first
person ("I don't open cars, only houses and businesses."), openers ("FYI", "Note:", "Per the
head falconer,", "Centre rule:", "Dairy note:", "Kiln note:"), abbreviations ("cwt", "mph",
"ha", "kg", "cm", "PA", "TPO", "A&E", "AWOL"), call and meeting notes whose first sentence
names the call, numbered things ("Vat 2", "Cargo 2", "Chair 6", "Kiln 1", "Aviary 4", "Block
C"). Duplicates mix paraphrases with synonyms, reordered clauses, different frames and number
forms ("twelve weeks" / "12 weeks", "raw" / "unpasteurised", "every other Friday" /
"fortnightly", "18 months" / "a year and a half", "14 cwt" / "fourteen hundredweight", "30
mph" / "thirty miles an hour", "3pm" / "15:00", "60-minute" / "an hour each"), two
three-member groups and one exact copy; refinements add details in the same sentence or in a
sentence of their own, with the detailed memory sometimes first; updates mix change wordings
("stopped ... and switched to", "has stepped down ... has taken over", "raised ... to", "is now
open", "moved ... from ... over to", "has moved to ..., and the new ... is", "have gone from
... to", "went up to", "now go to ... instead of", "are ... now", "have moved to", "has left
... and ... is their new") with a new value restated months later with no change word (a trade
price, a call-out fee, a tower captain, a clay supplier, opening days), and two three-member
groups; contradictions are two values saved at the same instant; distinct groups differ by a
batch number, a rider, a block, a house number, a wheelchair, a bell, a job number and client,
an aviary, a shelf and member or a couple and venue, sometimes by that alone; temporal groups
repeat an event on different days, with relative words and absolute dates. Every group has one
outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part quarry``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

QUARRY_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Brindlecote Blue is aged for twelve weeks before it's sold.", "01-11", F),
                   ("We mature the Brindlecote Blue for 12 weeks ahead of sale.", "05-16", F))),
    ("duplicate", (("Brindlecote only makes cheese from raw milk from its own Ayrshire herd.",
                    "02-05", F),
                   (("All the milk in Brindlecote cheeses is unpasteurised and comes from the "
                     "farm's own Ayrshires."), "06-22", F),
                   ("Dairy note: own-herd Ayrshire milk only, never pasteurised.", "10-14", F))),
    ("duplicate", (("Chainring riders get paid every other Friday.", "01-26", F),
                   ("Pay day at Chainring Couriers is fortnightly, on a Friday.", "05-29", F))),
    ("duplicate", (("Stanwardine grows Bacchus, Pinot Noir and Solaris.", "01-13", F),
                   (("The three grape varieties planted at Stanwardine are Solaris, Bacchus and "
                     "Pinot Noir."), "06-06", F))),
    ("duplicate", (("Stanwardine's sparkling wine spends at least 18 months on the lees.",
                    "02-22", F),
                   ("We leave the Stanwardine fizz on its lees for a year and a half minimum.",
                    "07-31", F))),
    ("duplicate", (("I don't open cars, only houses and businesses.", "02-06", F),
                   ("I don't open cars, only houses and businesses.", "08-19", F))),
    ("duplicate", (("Porters at Harrowfield General work twelve-hour shifts.", "01-15", F),
                   (("Team brief with the portering manager. Every portering shift at "
                     "Harrowfield runs for 12 hours."), "04-05", CF))),
    ("duplicate", (("Practice night at St Hildred's is Thursday, 7:30 to 9.", "01-16", F),
                   (("The St Hildred's band practises on Thursday evenings from half seven till "
                     "nine."), "05-08", F),
                   ("FYI ringing practice at St Hildred's: Thursdays, 19:30-21:00.", "09-24",
                    F))),
    ("duplicate", (("The tenor at St Hildred's weighs 14 cwt.", "02-09", F),
                   ("St Hildred's tenor bell is fourteen hundredweight.", "06-30", F))),
    ("duplicate", (("Greenhaugh won't climb in winds over 30 mph.", "01-19", F),
                   (("No Greenhaugh climber goes up a tree if the wind is above thirty miles an "
                     "hour."), "06-18", F))),
    ("duplicate", (("Highmere's flying displays are at 11:30 and 3pm.", "03-10", F),
                   (("Per the head falconer, there are two flying displays a day at Highmere, "
                     "one at half eleven and one at 15:00."), "07-14", F))),
    ("duplicate", (("Visitors aren't allowed to feed the birds at Highmere.", "04-07", F),
                   ("Centre rule: no feeding of any Highmere bird by the public.", "08-03", F))),
    ("duplicate", (("Kiln 2 at Clayhithe only fires to cone 6.", "01-09", F),
                   ("The Clayhithe Kiln 2 never goes above cone 6.", "05-15", F))),
    ("duplicate", (("The Fairlight Five play two 60-minute sets at a wedding.", "01-31", F),
                   ("At weddings the Fairlight Five do two sets of an hour each.", "06-26", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Brindlecote sells at the Saxby farmers' market.", "02-28", F),
                    (("Brindlecote has a stall at the Saxby farmers' market on the second and "
                      "fourth Saturdays of the month, next to the bread van."), "06-01", FD))),
    ("refinement", ((("Chainring has three cargo bikes. They're all Bullitts with electric "
                      "assist, kept in a railway arch at Fenlock Yard."), "02-13", F_D),
                    ("Cargo bikes at Chainring: 3.", "04-17", F))),
    ("refinement", (("Stanwardine's grapes are pressed off-site at Dellow Wine Services.",
                     "03-05", F),
                    (("We truck the Stanwardine grapes to Dellow Wine Services for pressing. "
                      "They have to be in the press within four hours of picking."), "09-27",
                     F_D))),
    ("refinement", (("I keep spare Euro cylinders in the van.", "01-24", F),
                    (("I carry spare Euro cylinders in the van in 35/35, 35/40 and 40/45 sizes, "
                      "all of them anti-snap rated."), "04-30", FD))),
    ("refinement", (("The Harrowfield porters' bleep is 4410.", "02-04", F),
                    (("Harrowfield porters' bleep: 4410, and out of hours it diverts to the site "
                      "manager's phone."), "05-14", FD))),
    ("refinement", (("St Hildred's has eight bells.", "01-30", F),
                    (("St Hildred's is a ring of eight, cast in 1897 and rehung in a new steel "
                      "frame in 2008."), "04-16", FD))),
    ("refinement", ((("Greenhaugh's chipper is a Timberwolf on a road-tow trailer, serviced every "
                      "250 hours by Moss Plant Hire."), "02-16", FD),
                    ("Greenhaugh has a Timberwolf chipper.", "05-24", F))),
    ("refinement", (("Highmere has a Harris hawk called Sedge.", "01-07", F),
                    (("Sedge is Highmere's Harris hawk. She's a nine-year-old female and does "
                      "the hawk walks with visitors."), "03-29", F_D))),
    ("refinement", (("Clayhithe members pay for kiln space by the shelf.", "02-03", F),
                    (("Clayhithe kiln space is charged per shelf, at £6 a shelf for a bisque "
                      "firing and £9 for a glaze firing."), "04-26", FD))),
    ("refinement", (("The Fairlight Five will learn a couple's first dance song.", "02-26", F),
                    (("The Fairlight Five will learn a couple's first dance song if they get at "
                      "least six weeks' notice, for an extra £150."), "05-17", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("Wrenhope is washed in a cider brine.", "01-18", OLD),
                ("We've stopped washing Wrenhope in cider and switched to a perry brine.",
                 "07-08", NEW))),
    ("update", (("Brindlecote Blue's trade price is £18.40 a kilo.", "02-10", OLD),
                ("Brindlecote charges shops £19.90 a kilo for Brindlecote Blue.", "09-23",
                 NEW))),
    ("update", (("Chainring's dispatcher is Rufaro Mabry.", "01-05", OLD),
                ("Dispatch at Chainring: Rufaro Mabry.", "03-09", OLD),
                (("Co-op meeting notes. Rufaro Mabry has stepped down from dispatch and "
                  "Gwendolen Iveson has taken over."), "08-12", CNEW))),
    ("update", (("Chainring's same-day rate inside the ring road is £8.50 a drop.", "02-19",
                 OLD),
                ("Chainring raised the same-day rate inside the ring road to £9.25 a drop.",
                 "06-27", NEW))),
    ("update", (("Stanwardine's cellar door is open Thursday to Sunday.", "03-21", OLD),
                ("Stanwardine cellar door: open Wednesday to Sunday.", "07-18", NEW))),
    ("update", (("My lockout call-out fee is £85.", "01-20", OLD),
                ("Lockout call-out: £95.", "08-08", NEW))),
    ("update", (("I order all my stock from Kittering Security Wholesale.", "02-27", OLD),
                ("I've moved my stock orders from Kittering over to Lockhaven Trade Counter.",
                 "06-12", NEW))),
    ("update", (("The portering supervisor at Harrowfield is Kwabena Oduba.", "01-03", OLD),
                (("Kwabena Oduba has moved to the estates team, and Harrowfield's new portering "
                  "supervisor is Maeve Polglase."), "07-22", NEW))),
    ("update", (("Harrowfield porters log their jobs on paper job sheets.", "02-11", OLD),
                (("Harrowfield porters have gone from paper job sheets to the Tasklane app on "
                  "their handsets."), "09-09", NEW))),
    ("update", (("The tower captain at St Hildred's is Gervase Moncrieff.", "03-02", OLD),
                ("Lavinia Yelland is tower captain at St Hildred's.", "10-21", NEW))),
    ("update", (("Greenhaugh charges £480 a day for a two-man crew.", "01-29", OLD),
                ("Greenhaugh's day rate for a two-man crew went up to £540.", "07-05", NEW))),
    ("update", (("Greenhaugh takes its arisings to the green waste site at Pellbury.", "02-24",
                 OLD),
                (("Greenhaugh's arisings now go to the biomass plant at Coldrigg instead of the "
                  "Pellbury green waste site."), "06-08", NEW))),
    ("update", (("A hawk walk at Highmere costs £55 per person.", "02-08", OLD),
                ("Hawk walks at Highmere are £60 a head now.", "06-15", NEW))),
    ("update", (("Clayhithe's glaze firings are on Tuesdays.", "01-21", OLD),
                ("Kiln note: glaze firings at Clayhithe happen on a Tuesday.", "03-13", OLD),
                ("Clayhithe glaze firings have moved to Fridays.", "08-21", NEW))),
    ("update", (("Clayhithe members buy their clay through Sorrell Ceramics.", "02-21", OLD),
                ("Clayhithe members get their clay from Hendra Brook Clay.", "10-09", NEW))),
    ("update", (("The Fairlight Five's drummer is Benedict Tasker.", "02-17", OLD),
                ("Benedict Tasker has left the Fairlight Five and Kit Ansbro is their new drummer.",
                 "09-12", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Vat 2 at Brindlecote holds 600 litres.", "04-02", A),
                       ("Brindlecote's Vat 2 takes 450 litres of milk.", "04-02", B))),
    ("contradiction", (("Chainring has 19 member-riders.", "05-21", A),
                       ("There are 24 riders in the Chainring co-op.", "05-21", B))),
    ("contradiction", (("Stanwardine has 4.2 hectares under vine.", "06-14", A),
                       ("Vines at Stanwardine: 6 ha.", "06-14", B))),
    ("contradiction", (("Harrowfield's portering team has 52 staff.", "03-18", A),
                       ("There are 44 porters on the Harrowfield team.", "03-18", B))),
    ("contradiction", (("Greenhaugh's stump grinder goes down to 45 cm below ground level.",
                        "04-19", A),
                       ("The Greenhaugh stump grinder only reaches 30 cm below the surface.",
                        "04-19", B))),
    ("contradiction", (("Highmere has 27 birds on site.", "05-09", A),
                       ("There are 34 birds of prey at Highmere.", "05-09", B))),
    ("contradiction", (("The Fairlight Five's fee for a Saturday wedding is £1,950.", "04-13", A),
                       ("A Saturday wedding with the Fairlight Five costs £2,200.", "04-13",
                        B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Batch BB-117 of Brindlecote Blue was made with morning milk only.",
                           "05-03", A),
                          ("Batch BB-124 of Brindlecote Blue was made with morning milk only.",
                           "05-03", B))),
    ("distinct_related", (("Jory Pascoe rides the Northgate zone on weekdays.", "03-12", A),
                          ("Nell Sowerby rides the Northgate zone at weekends.", "03-12", B))),
    ("distinct_related", (("Block C at Stanwardine is Pinot Noir, planted in 2015.", "04-24", A),
                          ("Block E at Stanwardine is Pinot Noir, planted in 2019.", "04-24",
                           B))),
    ("distinct_related", (("The back door at 12 Tanners Row has a five-lever mortice lock.",
                           "05-07", A),
                          ("The back door at 27 Tanners Row has a five-lever mortice lock.",
                           "05-07", B))),
    ("distinct_related", (("Chair 6 at Harrowfield has a broken footplate.", "06-17", A),
                          ("Chair 9 at Harrowfield has a broken footplate.", "06-17", B))),
    ("distinct_related", (("The 5th's rope at St Hildred's needs a new sally.", "05-28", A),
                          ("The 7th's rope at St Hildred's needs a new sally.", "05-28", B))),
    ("distinct_related", ((("Job GT-2207 is a crown reduction on a beech with a TPO for Mr "
                            "Fothergill."), "05-25", A),
                          (("Job GT-2215 is a crown reduction on a beech with a TPO for Mrs "
                            "Okonjo."), "05-25", B))),
    ("distinct_related", (("Aviary 4 at Highmere houses a pair of merlins.", "06-20", A),
                          ("Aviary 6 at Highmere houses a pair of little owls.", "06-20", B))),
    ("distinct_related", (("Shelf B in Clayhithe's Kiln 1 is reserved for Ros Vickery.", "07-02",
                           A),
                          ("Shelf D in Clayhithe's Kiln 1 is reserved for Abel Moxley.", "07-02",
                           B))),
    ("distinct_related", ((("The Fairlight Five are booked for the Pellegrini wedding at Cawood "
                            "Priory in June."), "01-27", A),
                          (("The Fairlight Five are booked for the Gilchrist wedding at Lowther "
                            "Mill in July."), "01-27", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("A cheese wheel slid off the top shelf in the Brindlecote cave this morning.",
                   "03-15", A),
                  ("On 9 May another cheese fell off a shelf in the ageing cave.", "05-10", B))),
    ("temporal", (("Cargo 2's chain snapped on Tollbar Hill this morning.", "04-09", A),
                  ("Snapped the chain on Cargo 2 again last week, same hill.", "05-20", B),
                  ("On 2 July the chain on Cargo 2 went again on Tollbar Hill.", "07-03", C))),
    ("temporal", (("Broke a key extractor on a job today.", "03-08", A),
                  ("Broke another key extractor yesterday.", "06-25", B))),
    ("temporal", (("The A&E lift at Harrowfield got stuck with a trolley in it this morning.",
                   "03-04", A),
                  ("On 11 April the A&E lift jammed with a trolley inside again.", "04-12",
                   B))),
    ("temporal", (("Rang a quarter peal at St Hildred's this morning.", "03-31", A),
                  ("Another quarter peal at St Hildred's last weekend.", "05-13", B),
                  ("On 15 September we rang another quarter peal at St Hildred's.", "09-16",
                   C))),
    ("temporal", ((("Sedge flew off during the afternoon display today and took an hour to come "
                    "back."), "05-19", A),
                  ("Sedge went AWOL during a display again yesterday.", "08-11", B))),
    ("temporal", ((("Kiln 1 at Clayhithe tripped the breaker halfway through a bisque firing "
                    "yesterday."), "02-20", A),
                  ("On 14 March Kiln 1 tripped the breaker again.", "03-15", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Chainring won't put more than 40 kg on a cargo bike.", "09-02", F),)),
    ("unrelated", ((("Stanwardine lights frost candles in the rows if it's forecast to drop "
                     "below -2°C after budburst."), "10-05", F),)),
    ("unrelated", (("Visitors can't go up the St Hildred's tower stairs without a ringer.",
                    "08-27", F),)),
    ("unrelated", ((("Note: Greenhaugh doesn't fell anything in nesting season without an "
                     "ecologist's check first."), "03-28", F),)),
    ("unrelated", (("The glaze room at Clayhithe has a sink with a clay trap.", "09-17", F),)),
    ("unrelated", (("The Fairlight Five bring their own PA and lighting rig to every gig.",
                    "10-30", F),)),
)

__all__ = ["QUARRY_HAND"]
