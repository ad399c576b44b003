"""The ``harbour`` part of the decision set: hand-written groups only (issue #32).

An eleventh held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare``, ``vault``, ``keep`` and ``ledger``: its subjects, holders,
names and wordings appear nowhere in the other parts or the template families, and it was
written blind on 2026-11-29, as the stores of agents people use would hold them, without
reading the rule agents, their tests or the documented failures. It covers an orchestra
librarian's notes (parts, hires, bowings, the conductor, rehearsal venues), a small airline's
crew rostering notes (rest, rosters, type ratings, standby, the chief pilot, routes), a wholesale
bakery's order book (cut-off times, standing orders, trade prices, flour, the delivery van), a
mountain hut's log (the season, bunks, half-board, the warden, water, helicopter drops), a
tattoo studio's notes (deposits, age rule, aftercare, opening days, rates, artists' books), a
community radio station's notes (the watershed, the transmitter, shows, presenters, the
station manager), a solar installer's job notes (warranties, DNO approval, panels,
scaffolding, job numbers), a dog grooming salon's notes (vaccinations, nervous dogs, prices,
hand-strips, the dryer), a home aquarium log (water changes, fertiliser, CO2, tank size, fish)
and a driving school's notes (lessons, the automatic car, prices, test centres, pupils). Styles:
full sentences, terse notes ("Chief pilot: Captain Sigurd Fjellvang.", "Grauspitz Hut
altitude: 2,780 m."), first person ("I do a 25% water change on my aquarium every Sunday."),
the user in the third person ("The user's aquarium holds 120 litres."), openers ("FYI", "Per
the warden,", "Librarian note:", "Rostering note:", "Studio rule:", "Scruffhound price list:"),
abbreviations ("FO", "DNO", "kWp", "CHF", "CO2", "W"), call and meeting notes whose first
sentence names the call. Duplicates mix paraphrases with synonyms, reordered clauses,
different frames and number forms ("12 hours" / "twelve hours", "28 days" / "four weeks", "£60"
/ "sixty-pound", "90 minutes" / "an hour and a half", "25%" / "a quarter"), two three-member
groups and one exact copy; refinements add details in the same sentence or in a sentence of
their own, with the detailed memory sometimes first; updates mix change wordings ("has
succeeded", "now runs", "took over ... when ... retired", "went up to", "now comes from ...
instead of", "now pay", "has started ... now", "has moved to", "has stood down ... has been
appointed in her place", "is now", "turned ... down to", "went up from ... to") with a new
value restated months later with no change word (a rehearsal venue, a warden, an hourly rate,
a groom price), and two three-member groups; contradictions are two values saved at the same
instant; distinct groups differ by an orchestral section, a first officer, a customer, a water
supply, a tattoo artist, a weekday, a job number, a dog, a shoal of fish or a pupil, sometimes
by that alone; temporal groups repeat an event on different days, with relative words and
absolute dates. Every group has one outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part harbour``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

HARBOUR_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", ((("Wrenfield Sinfonia players must hand their parts back to the library "
                     "within a week of the last concert."), "01-12", F),
                   (("Librarian note: orchestral parts are due back no later than 7 days after "
                     "the final performance."), "04-03", F),
                   (("Every Sinfonia player has seven days from the last concert to return "
                     "their part to the library."), "09-15", F))),
    ("duplicate", (("Brackenair cabin crew must get at least 12 hours' rest between duties.",
                    "02-06", F),
                   ("Minimum rest between two duties for Brackenair cabin crew is twelve hours.",
                    "05-21", F))),
    ("duplicate", (("Rostering note: Brackenair crew rosters are published 28 days in advance.",
                    "01-18", F),
                   ("Brackenair crew get their roster four weeks ahead.", "07-08", F))),
    ("duplicate", ((("Hobnail Bakehouse needs wholesale orders in by 2pm for delivery the next "
                     "morning."), "02-19", F),
                   (("FYI Hobnail's trade customers have to order before 14:00 to get their "
                     "bread the following morning."), "06-11", F))),
    ("duplicate", (("Gorringe's Deli takes its bloomers pre-sliced.", "03-07", F),
                   (("Phone call with Gorringe's Deli. They want all their bloomers sliced "
                     "before delivery."), "08-27", CF))),
    ("duplicate", (("The Grauspitz Hut is staffed from mid-June to the end of September.",
                    "01-29", F),
                   (("Per the warden, the Grauspitz Hut's staffed season runs from the middle of "
                     "June through to the end of September."), "05-02", F))),
    ("duplicate", (("Dogs can't stay overnight at the Grauspitz Hut.", "02-24", F),
                   ("Dogs can't stay overnight at the Grauspitz Hut.", "07-14", F))),
    ("duplicate", (("Blackthorn Tattoo takes a £60 non-refundable deposit to secure a booking.",
                    "01-22", F),
                   ("Bookings at Blackthorn need a sixty-pound deposit, which we don't refund.",
                    "04-30", F))),
    ("duplicate", (("Blackthorn won't tattoo anyone under 18, even with a parent's consent.",
                    "03-03", F),
                   ("Studio rule: no under-18s at Blackthorn, parental consent or not.", "10-06",
                    F))),
    ("duplicate", (("Radio Fenwharf rule: no bad language on air before 9pm.", "01-09", F),
                   ("Presenters on Fenwharf can't swear on air until after 21:00.", "03-26", F),
                   ("Before nine in the evening, swearing isn't allowed on Radio Fenwharf.",
                    "08-19", F))),
    ("duplicate", (("Sunrake Solar gives a 10-year workmanship warranty on every install.",
                    "02-13", F),
                   ("Every Sunrake installation comes with ten years' warranty on the workmanship.",
                    "06-24", F))),
    ("duplicate", ((("Scruffhound won't groom a dog that isn't up to date with its kennel cough "
                     "vaccine."), "01-31", F),
                   ("Dogs need a current kennel cough jab before Scruffhound will take them.",
                    "05-16", F))),
    ("duplicate", (("I do a 25% water change on my aquarium every Sunday.", "02-02", F),
                   ("The user changes a quarter of the tank water each Sunday.", "07-27", F))),
    ("duplicate", (("A standard lesson at Kerbside Driving School lasts 90 minutes.", "03-14",
                    F),
                   ("Kerbside's standard lessons are an hour and a half long.", "09-02", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", ((("The Sinfonia's Mahler 5 parts are on a three-month hire from Kestrelmoor "
                      "Music Hire at £410, and may only be marked in pencil."), "01-16", FD),
                    ("Our Mahler 5 parts are hired from Kestrelmoor.", "02-08", F))),
    ("refinement", (("All Brackenair captains are type-rated on the ATR 72.", "02-27", F),
                    (("Every Brackenair captain holds an ATR 72 type rating. They go through a "
                      "simulator check every six months at the Carnford training centre."),
                     "04-11", F_D))),
    ("refinement", (("Hobnail delivers to Bellflower & Rye six days a week.", "01-24", F),
                    (("Hobnail delivers to Bellflower & Rye six days a week, Monday to "
                      "Saturday, before 7am, and leaves the crates by the back door."), "03-19",
                     FD))),
    ("refinement", (("The Grauspitz Hut has 38 bunks.", "02-15", F),
                    (("There are 38 bunks at the Grauspitz Hut. They're split between four "
                      "dorms of eight and a six-bed family room."), "05-28", F_D))),
    ("refinement", (("Blackthorn gives all its clients a printed aftercare sheet.", "02-20", F),
                    (("Every Blackthorn client goes home with a printed aftercare sheet, which "
                      "says to keep the second-skin film on for three days and wash with "
                      "unscented soap."), "06-05", FD))),
    ("refinement", ((("Radio Fenwharf's transmitter sits on Gallow Hill, inside the water "
                      "company's compound, and runs at 25 watts."), "01-27", FD),
                    ("Fenwharf's transmitter is up on Gallow Hill.", "04-22", F))),
    ("refinement", (("Job S-2207 can't be connected until the DNO approves it.", "03-05", F),
                    (("Job S-2207 can't be switched on until the DNO signs it off. It's a 9.2 kWp "
                      "array with a 10 kWh battery, so it needs a G99 application."), "03-25",
                     F_D))),
    ("refinement", (("Pretzel the cockapoo is scared of the dryer.", "02-10", F),
                    (("Pretzel, the Hartigans' cockapoo, is scared of the dryer, so we towel her "
                      "off and finish with the low-speed blower."), "04-13", FD))),
    ("refinement", (("I dose liquid fertiliser in my tank.", "01-30", F),
                    (("I dose the tank with liquid fertiliser twice a week, 5 ml at a time, just "
                      "after the lights come on."), "03-12", FD))),
    ("refinement", ((("Kerbside has one automatic car for lessons, a grey Renault Clio hybrid "
                      "with dual controls, which Hermione Pennycook teaches in."), "02-22", FD),
                    ("There's a single automatic in the Kerbside fleet.", "05-07", F))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The Sinfonia's principal conductor is Griselda Okwuosa.", "01-05", OLD),
                (("Emeka Fairbrass has succeeded Griselda Okwuosa as principal conductor of the "
                  "Wrenfield Sinfonia."), "09-23", NEW))),
    ("update", (("Sinfonia rehearsals are held in Alderholt Methodist Hall.", "02-04", OLD),
                ("The Sinfonia rehearses at Quarrington Community Centre.", "10-13", NEW))),
    ("update", (("Brackenair flies Tullochmore to Skarvhavn twice a day.", "01-11", OLD),
                (("Brackenair now runs three return flights a day between Tullochmore and "
                  "Skarvhavn."), "06-17", NEW))),
    ("update", (("Chief pilot: Captain Sigurd Fjellvang.", "01-03", OLD),
                ("Sigurd Fjellvang is Brackenair's chief pilot.", "03-28", OLD),
                (("Captain Petronella Carradine took over as chief pilot when Sigurd Fjellvang "
                  "retired."), "08-08", NEW))),
    ("update", (("A wholesale bloomer from Hobnail is £2.40.", "02-09", OLD),
                ("Hobnail's trade price for a bloomer went up to £2.65.", "07-03", NEW))),
    ("update", (("Hobnail gets its flour from Tresswell Mill.", "01-15", OLD),
                (("Call with the Hobnail bakers. Our flour now comes from Bramwick Organics "
                  "instead of Tresswell Mill."), "05-30", CNEW))),
    ("update", (("Half-board at the Grauspitz Hut costs 72 francs for non-members.", "01-26",
                 OLD),
                ("Non-members now pay CHF 78 for half-board at the Grauspitz.", "06-20", NEW))),
    ("update", (("The Grauspitz Hut's warden is Annelies Gadient.", "02-01", OLD),
                ("Grauspitz Hut warden: Reto Casutt.", "11-04", NEW))),
    ("update", (("Blackthorn is open Tuesday to Saturday.", "01-08", OLD),
                ("Blackthorn has started opening on Mondays too, so it's Monday to Saturday now.",
                 "05-14", NEW))),
    ("update", (("Blackthorn charges £90 an hour.", "02-16", OLD),
                ("Blackthorn charges £100 an hour.", "10-21", NEW))),
    ("update", (("The Sunday folk show on Radio Fenwharf goes out at 7pm.", "01-20", OLD),
                ("Fenwharf's Sunday folk show has moved to 8pm.", "04-26", NEW))),
    ("update", (("Radio Fenwharf's station manager is Imelda Croft.", "02-12", OLD),
                (("Meeting of the Fenwharf trustees. Imelda Croft has stood down as station "
                  "manager, and Anand Banerjee has been appointed in her place."), "07-10",
                 CNEW))),
    ("update", (("Sunrake fits Lumora 430 W panels as standard.", "03-02", OLD),
                ("Our standard panel is now the Lumora 455 W.", "09-09", NEW))),
    ("update", (("A full groom for a medium dog at Scruffhound costs £45.", "01-13", OLD),
                ("Scruffhound price list: medium dog, full groom, £45.", "04-09", OLD),
                ("Scruffhound's full groom for a medium-sized dog is £52.", "11-18", NEW))),
    ("update", (("My tank's CO2 runs at about one bubble per second.", "02-05", OLD),
                ("I've turned the aquarium CO2 down to one bubble every two seconds.", "06-02",
                 NEW))),
    ("update", (("Kerbside charges £38 per lesson.", "01-19", OLD),
                ("Kerbside's lesson price went up from £38 to £42 in April.", "05-06", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("The Wrenfield Sinfonia has 64 players on its books.", "03-09", A),
                       ("There are 71 players in the Wrenfield Sinfonia.", "03-09", B))),
    ("contradiction", (("A Brackenair cabin crew duty can last at most 13 hours.", "04-16", A),
                       (("Cabin crew at Brackenair can be rostered for no more than 11 hours in a "
                         "duty."), "04-16", B))),
    ("contradiction", (("The Grauspitz Hut is at 2,610 metres.", "03-13", A),
                       ("Grauspitz Hut altitude: 2,780 m.", "03-13", B))),
    ("contradiction", (("Sunrake's scaffolding comes from Tor Access.", "05-22", A),
                       ("Sunrake uses Highridge Scaffolding on all its jobs.", "05-22", B))),
    ("contradiction", (("Scruffhound's last appointment of the day is at 4pm.", "02-28", A),
                       ("The final booking slot at Scruffhound is 3:30pm.", "02-28", B))),
    ("contradiction", (("The user's aquarium holds 120 litres.", "04-07", A),
                       ("My tank is 180 litres.", "04-07", B))),
    ("contradiction", (("Kerbside's nearest test centre is Marlcote.", "06-13", A),
                       ("The closest test centre to Kerbside is Hensbury.", "06-13", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("The second violin parts for the Brahms need new bowings marked in.",
                           "05-03", A),
                          ("The viola parts for the Brahms need new bowings marked in.", "05-03",
                           B))),
    ("distinct_related", (("First Officer Maelle Tanguy is on standby on Saturday.", "03-22", A),
                          ("First Officer Joakim Skrede is on standby on Saturday.", "03-22",
                           B))),
    ("distinct_related", (("Bellflower & Rye has a standing order of 12 bloomers a day.", "04-02",
                           A),
                          ("Gorringe's Deli has a standing order of 12 bloomers a day.", "04-02",
                           B))),
    ("distinct_related", (("The spring above the Grauspitz Hut supplies its drinking water.",
                           "06-26", A),
                          ("Washing water at the Grauspitz comes from the snowmelt tank.",
                           "06-26", B))),
    ("distinct_related", (("Ziggy Abara's books are full until March.", "01-10", A),
                          ("Romilly Ruddock's books are full until March.", "01-10", B))),
    ("distinct_related", (("The Tuesday drivetime show on Fenwharf is presented by Lemuel Ashdown.",
                           "03-06", A),
                          (("The Thursday drivetime show on Fenwharf is presented by Lemuel "
                            "Ashdown."), "03-06", B))),
    ("distinct_related", (("Job S-2231 is a 6 kWp install in Felsham.", "07-16", A),
                          ("Job S-2213 is a 6 kWp install in Felsham.", "07-16", B))),
    ("distinct_related", (("Tolly the schnauzer is booked in for a hand-strip every eight weeks.",
                           "05-10", A),
                          (("Marzipan the wire-haired dachshund is booked in for a hand-strip "
                            "every eight weeks."), "05-10", B))),
    ("distinct_related", (("I added six cherry barbs to the tank in June.", "06-29", A),
                          ("I added six harlequin rasboras to the tank in August.", "08-30",
                           B))),
    ("distinct_related", ((("Blessing Ferrier passed her driving test with Kerbside at the first "
                            "attempt."), "07-24", A),
                          (("Cuthbert Rampling passed his driving test with Kerbside at the "
                            "first attempt."), "08-14", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("The delivery van broke down halfway through the bread run this morning.",
                   "03-04", A),
                  ("On 19 March the van broke down on the bread run again.", "03-20", B))),
    ("temporal", (("The helicopter flew up the hut's supplies today.", "06-18", A),
                  ("Another helicopter drop for the Grauspitz yesterday.", "07-12", B),
                  ("On 2 August the helicopter brought up supplies again.", "08-03", C))),
    ("temporal", (("Fenwharf was off air for 20 minutes tonight when the transmitter tripped.",
                   "09-27", A),
                  ("On 14 October the transmitter tripped again and we lost the signal.",
                   "10-15", B))),
    ("temporal", (("Standby crew were called out this morning for a sick first officer.",
                   "02-03", A),
                  ("Standby was called out again yesterday, another FO off sick.", "02-26",
                   B))),
    ("temporal", (("The big dryer at Scruffhound blew the fuse this morning.", "03-15", A),
                  ("The dryer tripped the fuse again last week.", "04-24", B))),
    ("temporal", (("Found a dead neon tetra in the tank today.", "05-08", A),
                  ("Lost another neon tetra this morning.", "06-06", B),
                  ("On 3 July another neon tetra died.", "07-04", C))),
    ("temporal", (("The Kerbside Clio got a puncture during a lesson today.", "05-24", A),
                  ("On 11 June the Clio had another flat mid-lesson.", "06-12", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("The library puts the Sinfonia's oval stamp on the first page of every part.",
                    "05-15", F),)),
    ("unrelated", (("There's no mobile signal at the Grauspitz Hut, only the emergency radio.",
                    "08-21", F),)),
    ("unrelated", (("Blackthorn's autoclave is checked with a spore test every week.", "03-27",
                    F),)),
    ("unrelated", (("Sunrake's office shuts at 3pm on Fridays.", "04-18", F),)),
    ("unrelated", (("Scruffhound doesn't take cats.", "06-07", F),)),
    ("unrelated", (("Brackenair crew can't swap duties without the rostering team's OK.",
                    "09-11", F),)),
)

__all__ = ["HARBOUR_HAND"]
