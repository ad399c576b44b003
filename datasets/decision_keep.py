"""The ``keep`` part of the decision set: hand-written groups only (issue #32).

A ninth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare`` and ``vault``: its subjects, holders, names and wordings
appear nowhere in the other parts or the template families, and it was written blind on
2026-11-29, as the stores of agents people use would hold them, without reading the rule
agents, their tests or the documented failures. It covers a beekeeper's hive log (hives,
queens, varroa, swarms, honey), a drone survey firm's ops notes (pilots, aircraft, jobs,
insurance, weather), a community garden's committee notes (plots, watering, compost, work
days, fees), a pharmacy's stock notes (wholesalers, reorder levels, the vaccine fridge, the
CD cabinet, prescriptions), a podcast's production notes (guests, the editor, release day,
episodes), a sailing club's notes (race nights, moorings, membership, the commodore, boats), a
municipal library's notes (hours, loans, fines, the mobile library, kiosks), a software team's
release train (cadence, code freeze, the release manager, releases, flags), a family's
elder-care notes (Mum's and Dad's medication, carers, falls, hearing aids) and a brewery's
notes (beers, ABV, fermenters, the taproom, batches). Styles: full sentences, terse notes
("Chief remote pilot: Yewande Castellano.", "Survey rule: pilot plus one observer, no solo
flights."), first person ("I never open the hives when it's below 14 degrees."), openers
("FYI", "Note:", "Per the GP,", "Stock note:", "Hive log:"), abbreviations ("ABV", "hl", "CD",
"FV4", "PRs", "°C"), call and meeting notes whose first sentence names the call. Duplicates
mix paraphrases with synonyms, reordered clauses and different frames, three-member groups and
one exact copy; refinements add details in the same sentence or in a sentence of their own,
with the detailed memory sometimes first; updates mix change wordings ("no longer ... now",
"moved", "has stepped down ... now runs", "raised", "went up", "rotated", "was increased",
"dropped", "scrapped", "is leaving ... will edit") with a new value restated months later with
no change word; contradictions are two values saved at the same instant; distinct groups differ
by a hive, a job number, a plot, a prescription, an episode, a class of dinghy, a village, a
release, a parent or a batch, sometimes by that alone; temporal groups repeat an event on
different days, with relative words and absolute dates. Every group has one outcome a careful
reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part keep``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

KEEP_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Hive 3's queen is marked with a blue dot.", "04-14", F),
                   ("Hive log: the queen in hive three carries a blue paint mark.", "06-02",
                    F))),
    ("duplicate", (("Every survey flight needs a second person on site as a visual observer.",
                    "01-18", F),
                   (("We never fly a survey job without a spotter standing alongside the "
                     "pilot."), "03-07", F),
                   ("Survey rule: pilot plus one observer, no solo flights.", "07-23", F))),
    ("duplicate", ((("Hoses may only be used before 10am or after 6pm at Larkspur Lane "
                     "Community Garden."), "03-01", F),
                   (("At Larkspur Lane garden, hose watering is limited to early mornings "
                     "before ten and evenings after six."), "05-11", F))),
    ("duplicate", ((("Methotrexate is ordered from Alliston Healthcare, never from the other "
                     "wholesalers."), "02-07", F),
                   ("Stock note: we only buy methotrexate through Alliston Healthcare.",
                    "06-19", F))),
    ("duplicate", (("We send each guest their questions two days before the recording.",
                    "01-26", F),
                   (("Production sync for Slow Burn Stories. Guests get the question list 48 "
                     "hours ahead of recording."), "04-15", CF))),
    ("duplicate", (("Juniors have to wear a buoyancy aid whenever they're on the pontoon.",
                    "03-20", F),
                   (("No junior member sets foot on the Pelham Water pontoon without a "
                     "buoyancy aid on."), "06-06", F))),
    ("duplicate", (("Hallam Road Library closes early, at 1pm, on Saturdays.", "01-10", F),
                   ("Hallam Road Library closes early, at 1pm, on Saturdays.", "08-19", F))),
    ("duplicate", (("Every release train leaves on the second Tuesday of the month.", "01-05",
                    F),
                   ("Release trains depart monthly, on the 2nd Tuesday.", "04-04", F))),
    ("duplicate", (("Mum mustn't take her blood-pressure tablet on an empty stomach.", "02-01",
                    F),
                   ("Mum has to have some food before her blood-pressure pill.", "03-15", F),
                   (("Per the GP, Mum's blood-pressure tablet is taken with a meal, not on an "
                     "empty stomach."), "09-04", F))),
    ("duplicate", (("Our Hollowmere Pale is dry-hopped with Citra and Mosaic.", "01-29", F),
                   ("Citra and Mosaic go into the dry hop on Hollowmere Pale.", "05-02", F))),
    ("duplicate", (("I never open the hives when it's below 14 degrees.", "03-26", F),
                   ("Hive inspections only happen on days warmer than 14°C.", "05-30", F))),
    ("duplicate", (("Library members can have up to 12 items out at once.", "02-22", F),
                   ("The loan limit on a library card is twelve items.", "07-08", F))),
    ("duplicate", (("Code freeze starts 48 hours before a train departs.", "02-09", F),
                   (("FYI nothing gets merged to the release branch in the two days before "
                     "departure."), "05-21", F))),
    ("duplicate", (("Dogs aren't permitted in the Hollowmere taproom.", "03-03", F),
                   ("Note: the Hollowmere taproom has a no-dogs rule.", "08-27", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Hive 5 is being treated for varroa.", "08-14", F),
                    (("Hive 5 is being treated for varroa with an oxalic acid trickle, one dose "
                      "in December while the colony is broodless."), "11-20", FD))),
    ("refinement", ((("The Quarrybank quarry survey for Hestercombe Aggregates is flown with "
                      "the Matrice 350 and an L2 lidar unit at 80 m altitude."), "02-16", FD),
                    ("We fly the Quarrybank quarry survey with the Matrice 350.", "06-11", F))),
    ("refinement", (("Plot holders at Larkspur Lane pay an annual fee.", "01-12", F),
                    (("Each plot holder pays a yearly fee to the garden. It's £35, or £17.50 "
                      "for concessions."), "04-18", F_D))),
    ("refinement", (("The vaccine fridge is checked twice a day.", "02-13", F),
                    (("The vaccine fridge is checked at opening and at closing, and any reading "
                      "outside 2 to 8°C goes straight to the superintendent pharmacist."),
                     "05-28", FD))),
    ("refinement", (("Slow Burn Stories episodes are recorded remotely.", "01-08", F),
                    (("Slow Burn Stories episodes are recorded remotely on Riverside, and any "
                      "guest without a decent microphone is posted a USB one."), "03-12",
                     FD))),
    ("refinement", ((("Thursday evening races at Pelham Water Sailing Club start at 18:45, "
                      "pursuit format, with a two-hour time limit."), "04-02", FD),
                    ("Thursday evening racing starts at 18:45.", "06-20", F))),
    ("refinement", (("Hallam Road Library runs a baby rhyme time.", "02-06", F),
                    (("Hallam Road Library runs a baby rhyme time on Wednesday mornings in the "
                      "children's corner, free and with no booking needed."), "03-19", FD))),
    ("refinement", (("Release 24.6 includes the new billing export.", "05-07", F),
                    (("Release 24.6 includes the new billing export, behind the "
                      "billing_export_v2 flag and switched on for EU tenants first."), "05-24",
                     FD))),
    ("refinement", (("Dad has a walking frame for getting around the house.", "01-17", F),
                    (("Dad has a four-wheeled walking frame with a seat and hand brakes, lent by "
                      "the community equipment service, for getting around the house."),
                     "02-28", FD))),
    ("refinement", (("We're brewing a seasonal porter for the winter.", "09-09", F),
                    (("For the winter we're brewing a seasonal porter, a 6.2% smoked porter on "
                      "beechwood-smoked malt, going out in kegs and cans."), "10-16", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("I keep 6 hives at the Thornley apiary.", "02-05", OLD),
                ("After catching two swarms I now have 8 hives at Thornley.", "07-12", NEW))),
    ("update", (("My honey is sold through Pargeter's farm shop.", "01-24", OLD),
                (("Pargeter's farm shop no longer takes my honey, so it goes to the Saturday "
                  "market in Kelbrook now."), "08-21", NEW))),
    ("update", (("Our chief remote pilot is Oskar Vinterberg-Nair.", "01-15", OLD),
                ("Chief remote pilot: Yewande Castellano.", "08-03", NEW))),
    ("update", (("The survey drones are insured with Skyguard Mutual.", "02-26", OLD),
                ("We moved the fleet's insurance over to Aerocover at renewal.", "09-16",
                 NEW))),
    ("update", (("Larkspur Lane work days are on the first Sunday of the month.", "01-20",
                 OLD),
                ("Garden work days have moved to the last Saturday of each month.", "05-06",
                 NEW))),
    ("update", (("The compost bays are managed by Idris Penhaligon.", "02-19", OLD),
                ("Idris Penhaligon looks after the compost bays.", "04-07", OLD),
                (("Idris has stepped down and Maryam Oyelaran-Fitch now runs the compost "
                  "bays."), "07-26", NEW))),
    ("update", (("Reorder level for amoxicillin 500mg capsules is 10 packs.", "03-04", OLD),
                ("We raised the amoxicillin 500mg reorder level to 16 packs for the winter.",
                 "10-01", NEW))),
    ("update", (("The main wholesaler delivery arrives at 11:30.", "01-31", OLD),
                ("Our main wholesale delivery turns up at 14:00.", "06-24", NEW))),
    ("update", (("Slow Burn Stories is edited by Piers Halloran.", "01-14", OLD),
                (("Call with Juno about season two. Piers Halloran is leaving, and Dagny "
                  "Osterholt will edit Slow Burn Stories from episode 20."), "06-13", CNEW))),
    ("update", (("Slow Burn Stories drops new episodes on Tuesdays.", "02-20", OLD),
                ("New Slow Burn Stories episodes come out every Thursday.", "09-10", NEW))),
    ("update", (("Annual full membership at Pelham Water is £240.", "01-03", OLD),
                ("Pelham Water full membership went up to £275 a year.", "11-06", NEW))),
    ("update", (("Commodore of Pelham Water Sailing Club: Hector Ambrose-Lund.", "02-02", OLD),
                (("Saoirse Delacroix-Burke was elected commodore of Pelham Water at the "
                  "AGM."), "11-18", NEW))),
    ("update", (("Overdue fines on adult books are 25p a day.", "01-16", OLD),
                ("The council scrapped overdue fines on adult books.", "04-24", NEW))),
    ("update", (("The release manager for the train is Benedikt Szabo.", "01-09", OLD),
                ("Release manager duty rotated to Ifeoma Larkin this quarter.", "04-10",
                 NEW))),
    ("update", (("A carer visits Mum twice a day, morning and evening.", "02-14", OLD),
                ("Mum's care package was increased to four carer visits a day.", "06-27",
                 NEW))),
    ("update", (("Hollowmere Pale is 4.2% ABV.", "02-08", OLD),
                ("We've dropped Hollowmere Pale to 3.8% ABV to get it into the lower duty band.",
                 "07-03", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Hive 7 is headed by a queen from 2023.", "05-09", A),
                       ("The queen in hive 7 was raised in 2022.", "05-09", B))),
    ("contradiction", (("The Matrice 350 has 412 flight hours logged.", "06-18", A),
                       ("Our Matrice 350's logbook shows 388 hours.", "06-18", B))),
    ("contradiction", (("The key to the CD cabinet is held by Noor Haddad-Price.", "03-27", A),
                       ("Tobias Elmgreen keeps the controlled drugs cabinet key.", "03-27",
                        B))),
    ("contradiction", (("Mooring M14 is assigned to the yacht Kittiwake.", "04-22", A),
                       ("Kittiwake is on mooring M22.", "04-22", B))),
    ("contradiction", (("Hallam Road Library has 6 public computers.", "03-13", A),
                       ("There are 10 public PCs at Hallam Road Library.", "03-13", B))),
    ("contradiction", (("Dad's pacemaker check is due every 6 months.", "05-15", A),
                       ("Dad only needs his pacemaker checked once a year.", "05-15", B))),
    ("contradiction", (("Fermenter FV4 holds 20 hectolitres.", "02-29", A),
                       ("FV4 is our 30 hl fermenter.", "02-29", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Hive 1 produced 18 kg of honey this summer.", "09-02", A),
                          ("Hive 6 produced 18 kg of honey this summer.", "09-02", B))),
    ("distinct_related", (("Job DS-4471 is a roof survey for Carnforth Estates.", "03-06", A),
                          ("Job DS-4478 is a roof survey for Birchwell Housing.", "03-11", B))),
    ("distinct_related", (("Plot 9 is allocated to Ines Valderrama.", "02-10", A),
                          ("Plot 19 is allocated to Teodor Blaszczyk.", "02-10", B))),
    ("distinct_related", ((("Prescription RX-30815 for Mrs Ellery is waiting on a part-supply "
                            "of insulin pens."), "04-11", A),
                          (("Prescription RX-30851 for Mr Ogunbanjo is waiting on a part-supply "
                            "of insulin pens."), "04-11", B))),
    ("distinct_related", (("Episode 14 features the lighthouse keeper Morwenna Trethewey.",
                           "02-15", A),
                          ("Episode 15 features the glassblower Anselm Kowalczyk.", "02-15", B),
                          ("Episode 16 features the cartographer Delphine Achterberg.", "03-01",
                           C))),
    ("distinct_related", (("The club's Laser dinghies are stored in the east compound.",
                           "03-23", A),
                          ("The club's RS Fevas are stored in the west compound.", "03-23", B))),
    ("distinct_related", (("The mobile library visits Oakhurst village on Mondays.", "01-22",
                           A),
                          ("The mobile library visits Fenby Green on Mondays.", "01-22", B))),
    ("distinct_related", (("Release 24.5 shipped with 41 merged PRs.", "05-16", A),
                          ("Release 24.7 shipped with 41 merged PRs.", "07-18", B))),
    ("distinct_related", (("Mum's hearing aids take size 312 batteries.", "04-05", A),
                          ("Dad's hearing aids take size 13 batteries.", "04-05", B))),
    ("distinct_related", (("Batch 118 of Hollowmere Pale was kegged in March.", "04-03", A),
                          ("Batch 119 of Hollowmere Pale was canned in April.", "05-03", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Hive 3 swarmed this morning and settled in the hawthorn.", "05-18", A),
                  ("On 2 June hive 3 threw another swarm.", "06-03", B))),
    ("temporal", (("A gust grounded the Tidemill bridge survey this morning.", "03-14", A),
                  ("High winds called off the Tidemill bridge flights again yesterday.",
                   "03-28", B))),
    ("temporal", (("The garden's tool shed was broken into yesterday.", "04-09", A),
                  ("On 16 September the tool shed was broken into again.", "09-17", B),
                  ("The shed got broken into for a third time last week.", "11-25", C))),
    ("temporal", (("The vaccine fridge tripped its temperature alarm today.", "10-07", A),
                  ("The fridge alarm went off again on 28 October.", "10-29", B))),
    ("temporal", ((("A Topper capsized off the north buoy today and the safety boat brought the "
                    "helm in."), "06-15", A),
                  (("On 10 August the safety boat was called out to another capsize at the "
                    "north buoy."), "08-11", B))),
    ("temporal", (("The library's self-service kiosks went down this morning.", "02-21", A),
                  ("Self-service kiosks at the library were offline again yesterday.", "05-14",
                   B))),
    ("temporal", (("Dad had a fall in the kitchen today, no injuries.", "01-30", A),
                  ("Dad fell again on 4 March, this time in the garden.", "03-05", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Slow Burn Stories' theme music is licensed from Halvard Strøm.", "03-09",
                    F),)),
    ("unrelated", ((("Hotfixes skip the train and go out the same day once two reviewers have "
                     "approved them."), "06-05", F),)),
    ("unrelated", (("A pig farmer from Ashby Moor collects our spent grain.", "05-25", F),)),
    ("unrelated", ((("The garden's bee hotel was built by the Year 4 class at Linthwaite "
                     "Primary."), "06-26", F),)),
    ("unrelated", (("Spare propellers are kept in the grey Peli case.", "08-08", F),)),
    ("unrelated", (("The library's local history room has to be unlocked by staff.", "10-23",
                    F),)),
)

__all__ = ["KEEP_HAND"]
