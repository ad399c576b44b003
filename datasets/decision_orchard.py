"""The ``orchard`` part of the decision set: hand-written groups only (issue #32).

A fourteenth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare``, ``vault``, ``keep``, ``ledger``, ``harbour``, ``lantern``
and ``quarry``: its subjects, holders, names and wordings appear nowhere in the other parts or
the template families, and it was written blind on 2026-11-29, as the stores of agents people
use would hold them, without reading the rule agents, their tests or the documented failures.
It covers a ski school's notes (lesson times, age limits, helmets, the head of ski school,
course prices, instructors, private lessons, wind holds), a scuba club's notes (depth limits
for trainees, Sunday dives, the club RIB, the diving officer, air fills, members, cylinders,
dolphins), a recording studio's notes (the day rate, the grand piano, dry hire, the house
engineer, the live room, bookings, the talkback), a canal boat hire firm's notes (changeover
day, dogs, pump-outs, hire prices, the yard manager, the fleet, boats, a lock cill), a blood
donor session team's notes (the gap between donations, the rest after donating, haemoglobin
checks, the venue, donor chairs, session nurses, fainting donors, tattoos), a bookbinder's notes
(linen thread, goatskin, rebacking, greyboard, family Bibles, the nipping press), a dance
studio's notes (floors, adult tap, the term fee, the ballet teacher, studio capacity,
showcases, parents watching), a street-food van's notes (gas, the hygiene rating, pitches,
bao prices, the generator, card payments), a hot-air balloon operator's notes (the passenger
weight limit, the champagne toast, launch sites, baskets, envelope inspections, cancelled
flights) and a farrier's notes (tied-up horses, the gas forge, prices, clients' cobs, kicks,
Sundays). Styles: full sentences, terse notes ("DO at Pendower: Hesketh Gillanders.", "Full
set, hot shod: £105.", "Five-day group course, Drumcairn: £235."), first person ("I sew all my
text blocks with unbleached Irish linen thread."), the user in the third person ("The user
charges £95 for a full set of hot shoes."), openers ("FYI", "Note:", "Per the chief pilot,",
"Club rule:", "Ski school rule:", "Heads-up:"), abbreviations ("DO", "RIB", "AGM", "g/L", "m²",
"ft", "st", "hp", "PL-"), call and meeting notes whose first sentence names the call, numbered
things ("Cylinder 7", "Studio 1", "Studio A", "PL-3308", "G-CKXL").
Duplicates mix paraphrases with synonyms, reordered clauses, different frames and number forms
("two hours, starting at 10am" / "10:00 to 12:00", "20 metres" / "20 m", "8am" / "eight in the
morning", "£420" / "four hundred and twenty pounds", "twelve weeks" / "12 weeks" / "84 days",
"fifteen minutes" / "15 mins", "19 kg" / "nineteen-kilo", "18 stone" / "eighteen stone"), two
three-member groups and one exact copy; refinements add details in the same sentence or in a
sentence of their own, with the detailed memory sometimes first; updates mix change wordings
("has retired, and ... now heads", "stood down ... was elected in his place", "has switched
... from ... to", "raised ... to", "took over from", "have moved out of ... into", "now costs",
"these days", "went from ... to", "now", "now, not", "has stopped ... and now uses") with a new
value restated months later with no change word (a course price, a house engineer, a hire
price, a farrier's price), and two three-member groups; contradictions are
two values saved at the same instant; distinct groups differ by a lesson number and
instructor, a cylinder, a studio and session, a boat, a nurse and weekday, a family, a season
and venue, a bao, an envelope registration or a horse and owner, sometimes by that alone;
temporal groups repeat an event on different days, with relative words and absolute dates.
Every group has one outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part orchard``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

ORCHARD_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Drumcairn group lessons last two hours, starting at 10am.", "01-08", F),
                   ("Group lessons at Drumcairn run from 10:00 to 12:00.", "02-14", F))),
    ("duplicate", (("Children under six can't join a group lesson at Drumcairn.", "01-04", F),
                   (("Drumcairn Ski School only takes kids aged six and over in its group "
                     "classes."), "02-27", F),
                   ("Ski school rule: Drumcairn group lessons are 6+ only.", "12-09", F))),
    ("duplicate", (("Pendower trainees aren't allowed to dive below 20 metres.", "03-03", F),
                   ("Club rule: no trainee at Pendower Divers goes deeper than 20 m.", "07-19",
                    F))),
    ("duplicate", (("Pendower's Sunday club dives leave from Porthkellis slipway at 8am.",
                    "04-14", F),
                   (("Pendower committee call. On Sundays the club dives set off from the slip "
                     "at Porthkellis at eight in the morning."), "08-06", CF))),
    ("duplicate", ((("Sallowbrook Sound's day rate is £420 for ten hours, with an engineer "
                     "included."), "02-02", F),
                   (("A ten-hour day at Sallowbrook costs four hundred and twenty pounds, "
                     "engineer and all."), "06-11", F))),
    ("duplicate", (("Changeover day at Cadwell Wharf is Saturday.", "01-23", F),
                   ("Cadwell Wharf hands its boats over to new hirers on Saturdays.", "05-30",
                    F))),
    ("duplicate", (("Dogs are welcome on Cadwell Wharf boats, up to two per boat.", "02-12", F),
                   ("FYI Cadwell Wharf lets hirers bring a maximum of 2 dogs on board.", "06-19",
                    F))),
    ("duplicate", ((("Skelbrooke sessions turn away anyone who gave whole blood less than twelve "
                     "weeks ago."), "01-17", F),
                   (("The minimum gap between whole-blood donations at a Skelbrooke session is "
                     "12 weeks."), "04-22", F),
                   ("Note: 84 days minimum between whole-blood donations.", "09-05", F))),
    ("duplicate", ((("Every Skelbrooke donor sits down for fifteen minutes with a drink after "
                     "donating."), "03-06", F),
                   ("After giving blood, Skelbrooke donors rest for 15 mins with tea or squash.",
                    "07-24", F))),
    ("duplicate", (("I sew all my text blocks with unbleached Irish linen thread.", "02-07", F),
                   (("The user sews every text block they bind on unbleached linen thread from "
                     "Ireland."), "08-28", F))),
    ("duplicate", (("No street shoes on the Halcyon Dance studio floors.", "01-12", F),
                   ("Outdoor shoes aren't allowed on any floor at Halcyon.", "05-21", F))),
    ("duplicate", (("Bao Down's gas comes in 19 kg propane bottles.", "03-19", F),
                   ("The Bao Down van runs on nineteen-kilo propane cylinders.", "09-10", F))),
    ("duplicate", (("Aldergate won't fly any passenger who weighs more than 18 stone.", "02-18",
                    F),
                   (("Per the chief pilot, the passenger weight limit on Aldergate balloons is "
                     "eighteen stone."), "06-24", F))),
    ("duplicate", ((("The user won't shoe a horse that isn't caught and tied up by the time they "
                     "get to the yard."), "01-29", F),
                   (("The user won't shoe a horse that isn't caught and tied up by the time they "
                     "get to the yard."), "07-11", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Drumcairn rents out helmets.", "01-10", F),
                    (("Drumcairn rents helmets for £5 a day, and they're free for anyone in a "
                      "kids' group."), "02-21", FD))),
    ("refinement", ((("Pendower's club RIB is called Sea Pink. She's 6.5 m long with twin 90 hp "
                      "outboards."), "03-14", F_D),
                    ("Pendower's boat is the Sea Pink.", "06-03", F))),
    ("refinement", (("There's a grand piano in Sallowbrook's live room.", "02-09", F),
                    (("The live room at Sallowbrook has a grand piano, a Yamaha C7 that gets tuned "
                      "before every session."), "05-06", FD))),
    ("refinement", (("Cadwell Wharf hire boats all have pump-out loos.", "01-31", F),
                    (("Every Cadwell Wharf boat has a pump-out toilet. One pump-out at the wharf "
                      "is included in the hire price."), "04-11", F_D))),
    ("refinement", (("Skelbrooke sessions check every donor's haemoglobin before they give.",
                     "02-15", F),
                    (("Each Skelbrooke donor gets a finger-prick haemoglobin test first, and "
                      "women need at least 125 g/L and men 135 g/L to donate."), "06-07", FD))),
    ("refinement", (("I use goatskin for full-leather bindings.", "03-01", F),
                    (("For full-leather bindings I use vegetable-tanned goatskin from Pelletier "
                      "& Crane in Northampton."), "07-16", FD))),
    ("refinement", ((("Halcyon's adult tap class is on Tuesdays at 8pm in Studio 2, taught by "
                      "Kezia Ferraby."), "02-06", FD),
                    ("Halcyon runs an adult tap class.", "04-25", F))),
    ("refinement", (("Bao Down has a 5 food hygiene rating.", "04-03", F),
                    (("Bao Down's food hygiene rating is 5 out of 5. The inspector's only note "
                      "in March was to refill the soap at the hand-wash sink."), "05-15", F_D))),
    ("refinement", (("Aldergate flights end with a champagne toast.", "03-22", F),
                    (("Every Aldergate flight ends with a champagne toast on landing and a "
                      "printed flight certificate for each passenger."), "08-09", FD))),
    ("refinement", ((("The user carries a gas forge in the van. It's a two-burner that gets a shoe "
                      "to working heat in about four minutes."), "02-24", F_D),
                    ("The user has a gas forge in their van.", "06-28", F))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("Head of Drumcairn Ski School: Ailsa Brodribb.", "01-06", OLD),
                (("Ailsa Brodribb has retired, and Ruairidh Venning now heads the ski school at "
                  "Drumcairn."), "11-26", NEW))),
    ("update", (("A five-day group course at Drumcairn costs £210.", "01-15", OLD),
                ("Five-day group course, Drumcairn: £235.", "11-19", NEW))),
    ("update", (("Pendower's diving officer is Hesketh Gillanders.", "01-09", OLD),
                ("DO at Pendower: Hesketh Gillanders.", "03-26", OLD),
                (("Pendower AGM. Hesketh Gillanders stood down as diving officer and Carys "
                  "Pennefather was elected in his place."), "10-08", CNEW))),
    ("update", (("Pendower gets its air fills at Pollurian Dive Centre.", "02-20", OLD),
                (("Pendower has switched its air fills from Pollurian Dive Centre to the club's "
                  "own compressor at Trevoyle."), "07-02", NEW))),
    ("update", (("Dry hire at Sallowbrook is £45 an hour.", "01-24", OLD),
                ("Sallowbrook raised dry hire to £52 an hour.", "06-14", NEW))),
    ("update", (("Sallowbrook's house engineer is Wojciech Zaremba.", "02-28", OLD),
                ("Mabli Prothero is the house engineer at Sallowbrook Sound.", "09-18", NEW))),
    ("update", (("A week on Pintail Rose in August costs £1,480.", "01-19", OLD),
                ("Pintail Rose, one week in August: £1,620.", "10-15", NEW))),
    ("update", (("Clem Attwater runs the yard at Cadwell Wharf.", "02-03", OLD),
                (("Cadwell Wharf's yard manager since June is Wenna Ebbage, who took over from "
                  "Clem Attwater."), "07-09", NEW))),
    ("update", (("The Skelbrooke session is held in St Ebba's church hall.", "01-13", OLD),
                ("Skelbrooke donor sessions: St Ebba's church hall.", "04-09", OLD),
                (("Skelbrooke sessions have moved out of St Ebba's church hall into the Wharram "
                  "Road community centre."), "08-20", NEW))),
    ("update", (("I charge £65 to reback a cloth binding.", "02-10", OLD),
                ("Rebacking a cloth book now costs £80 with me.", "08-15", NEW))),
    ("update", (("I buy my greyboard from Fallowfield Paper.", "03-11", OLD),
                ("My greyboard comes from Hemsley & Dunn these days.", "09-24", NEW))),
    ("update", (("A term of weekly classes at Halcyon is £96.", "01-26", OLD),
                ("Halcyon's termly fee for one class a week went from £96 to £108.", "09-02",
                 NEW))),
    ("update", (("Halcyon's ballet teacher is Eirlys Blaylock.", "02-01", OLD),
                ("Ballet at Halcyon is taught by Sidonie Gorst now.", "10-03", NEW))),
    ("update", (("Bao Down trades at Tolgate Market on Thursdays.", "03-07", OLD),
                ("Bao Down's Thursday pitch is at the Wynford Quay night market now, not Tolgate.",
                 "07-25", NEW))),
    ("update", (("Aldergate's Saturday flights launch from Farleigh Green.", "03-05", OLD),
                (("Aldergate has stopped launching from Farleigh Green and now uses Coldharbour "
                  "Meadow for Saturday flights."), "08-01", NEW))),
    ("update", (("The user charges £95 for a full set of hot shoes.", "01-22", OLD),
                ("Full set, hot shod: £105.", "09-13", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Drumcairn has 38 instructors this season.", "12-05", A),
                       ("There are 31 instructors at Drumcairn Ski School this season.", "12-05",
                        B))),
    ("contradiction", (("Pendower has 64 paid-up members.", "05-13", A),
                       ("Pendower Divers' membership stands at 71.", "05-13", B))),
    ("contradiction", (("Sallowbrook's live room is 48 square metres.", "04-16", A),
                       ("The live room at Sallowbrook measures 60 m².", "04-16", B))),
    ("contradiction", (("Cadwell Wharf has a fleet of 14 narrowboats.", "03-27", A),
                       ("Cadwell Wharf hires out 11 boats.", "03-27", B))),
    ("contradiction", (("Skelbrooke sessions use 10 donor chairs.", "05-08", A),
                       ("There are eight donor chairs at a Skelbrooke session.", "05-08", B))),
    ("contradiction", (("Studio 1 at Halcyon holds up to 30 dancers.", "06-12", A),
                       ("Halcyon's Studio 1 has a capacity of 24.", "06-12", B))),
    ("contradiction", (("Aldergate's largest basket carries 16 passengers.", "04-29", A),
                       ("The biggest Aldergate basket takes 12 passengers plus the pilot.",
                        "04-29", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", ((("Private lesson PL-3308 is booked for the Haverstock twins with "
                            "Morven Crake."), "12-12", A),
                          (("Private lesson PL-3311 is booked for the Haverstock twins with "
                            "Fionnlagh Dewar."), "12-12", B))),
    ("distinct_related", (("Cylinder 7 at Pendower failed its hydrostatic test.", "05-27", A),
                          ("Cylinder 12 at Pendower failed its hydrostatic test.", "05-27", B))),
    ("distinct_related", ((("Lowlight Parade have Studio A at Sallowbrook booked for three days of "
                            "tracking."), "03-18", A),
                          (("Lowlight Parade have Studio B at Sallowbrook booked for two days of "
                            "mixing."), "03-18", B))),
    ("distinct_related", (("Pintail Rose sleeps six and is 62 ft long.", "02-26", A),
                          ("Teal Morning sleeps six and is 57 ft long.", "02-26", B))),
    ("distinct_related", (("Nurse Kemi Ajayi leads the Tuesday Skelbrooke sessions.", "06-04",
                           A),
                          ("Nurse Bryony Haslam leads the Thursday Skelbrooke sessions.",
                           "06-04", B))),
    ("distinct_related", (("The Aldous family Bible needs new endbands and a reback.", "04-18",
                           A),
                          ("The Corlett family Bible needs new endbands and a reback.", "04-18",
                           B))),
    ("distinct_related", (("Halcyon's summer showcase is at the Kelmscott Hall.", "05-02", A),
                          ("Halcyon's winter showcase is at the Old Tannery Theatre.", "05-02",
                           B))),
    ("distinct_related", (("Bao Down's pork belly bao is £7.", "04-23", A),
                          ("Bao Down's crispy tofu bao is £7.", "04-23", B))),
    ("distinct_related", (("Envelope G-CKXL is due its annual inspection in April.", "01-30", A),
                          ("Envelope G-CKXR is due its annual inspection in April.", "01-30",
                           B))),
    ("distinct_related", (("Barley, Mrs Lidgate's cob, is shod in front only.", "05-17", A),
                          ("Tansy, Mr Quarmby's cob, is shod in front only.", "05-17", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Saw a pod of dolphins off Porthkellis on the club dive today.", "05-19", A),
                  ("Dolphins again off Porthkellis last weekend.", "06-25", B),
                  ("On 8 September we had dolphins off Porthkellis on the Sunday dive.", "09-09",
                   C))),
    ("temporal", (("The talkback in Studio A cut out halfway through a take this morning.",
                   "03-12", A),
                  ("Studio A's talkback failed again yesterday.", "05-23", B))),
    ("temporal", (("A hirer got Teal Morning stuck on the cill at Duckett's Lock today.",
                   "06-15", A),
                  ("On 16 July another hirer grounded Teal Morning on the Duckett's Lock cill.",
                   "07-17", B))),
    ("temporal", (("A donor fainted at the Skelbrooke session this morning.", "02-13", A),
                  ("Another donor fainted at Skelbrooke yesterday, in the rest area.", "04-30",
                   B))),
    ("temporal", (("Bao Down's generator died halfway through service tonight.", "06-21", A),
                  ("On 22 August the van's generator packed up mid-service again.", "08-23",
                   B))),
    ("temporal", (("Cancelled all of Aldergate's evening flights for wind today.", "05-04", A),
                  ("Evening flights scrubbed for wind again last week.", "06-10", B),
                  ("On 17 August we cancelled the evening flights for wind once more.", "08-18",
                   C))),
    ("temporal", (("A youngster at Sedgeley Stud kicked the user in the thigh this morning.",
                   "03-21", A),
                  ("The user got kicked again yesterday, by another Sedgeley youngster.",
                   "07-30", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", ((("Heads-up: Drumcairn lessons carry on in light snow but stop if the top lift "
                     "closes for wind."), "01-03", F),)),
    ("unrelated", (("My nipping press is a cast-iron one from the 1890s.", "10-17", F),)),
    ("unrelated", (("Parents can watch the last ten minutes of Halcyon's children's classes.",
                    "09-26", F),)),
    ("unrelated", ((("Anyone with a new tattoo or piercing has to wait four months before "
                     "donating at a Skelbrooke session."), "10-10", F),)),
    ("unrelated", (("Bao Down takes card payments only, no cash.", "10-22", F),)),
    ("unrelated", (("The user never shoes on a Sunday.", "11-05", F),)),
)

__all__ = ["ORCHARD_HAND"]
