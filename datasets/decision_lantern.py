"""The ``lantern`` part of the decision set: hand-written groups only (issue #32).

A twelfth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld``, ``spare``, ``vault``, ``keep``, ``ledger`` and ``harbour``: its
subjects, holders, names and wordings appear nowhere in the other parts or the template
families, and it was written blind on 2026-11-29, as the stores of agents people use would hold
them, without reading the rule agents, their tests or the documented failures. It covers a
glassblowing studio's notes (the furnace, tasters, batch glass, the annealer, benches, the hot
shop manager), a rowing club's notes (swim tests, red boards, boats, the head coach, outings,
capsize drills), a letterpress studio's notes (paper, presses, plates, minimum orders,
wedding orders), a paediatric physiotherapy practice's notes (appointments, hydrotherapy, age
limits, fees, young patients, the hoist), a boatyard's notes (the travel hoist, antifouling,
storage ashore, the slipway, the yard manager, boats in bays), a translation agency's notes
(minimum charges, turnaround, translators, word rates, the CAT tool, job numbers), a cat
rescue's notes (pairs of kittens, adoption fees, the vet, fosterers, FIV cats, intakes), a
board-game café's notes (the table fee, learn-to-play nights, opening hours, the game library,
campaign tables), an astronomy society's observatory notes (open nights, the main telescope,
membership, talks, red torches) and a piano tuner's notes (pitch, clients' pianos, fees, a
concert hall's Steinway, broken strings). Styles: full sentences, terse notes ("Max lift on the
Skelwith travel hoist: 35 t.", "Whiskerholme vet: Brookfield Vets."), first person ("I tune all
my clients' pianos to A440."), openers ("FYI", "Per the society secretary,", "Studio rule:"),
abbreviations ("°C", "t", "m", "LP", "DE>EN", "FIV", "Dob", "AGM"), call and meeting notes
whose first sentence names the call. Duplicates mix paraphrases with synonyms, reordered
clauses, different frames and number forms ("1,140°C" / "1140 degrees Celsius", "over-16s" /
"at least sixteen", "45 minutes" / "three quarters of an hour", "£40" / "forty pounds", "five
working days" / "a working week", "in pairs" / "in twos", "£5 per-person" / "five pounds a
head"), two three-member groups and one exact copy; refinements add details in the same
sentence or in a sentence of their own, with the detailed memory sometimes first; updates mix
change wordings ("has put ... up to", "has replaced", "now start", "has switched ... from ...
to", "went up from ... to", "have dropped to", "is now", "has retired, and the new ... is",
"moved ... from ... over to", "now stays open", "I've put ... up to") with a new value restated
months later with no change word (a hot shop manager, a minimum order, a word rate, a vet, a
membership fee), and two three-member groups; contradictions are two values saved at the same
instant; distinct groups differ by a bench and renter, a boat, an order number and client, a
sibling, a boat and bay, a job number, a cat, a table and weekday, a speaker and month or a
client, sometimes by that alone; temporal groups repeat an event on different days, with
relative words and absolute dates. Every group has one outcome a careful reader would agree
with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part lantern``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

LANTERN_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Emberwick's furnace runs at 1,140°C.", "01-14", F),
                   ("The glass furnace at Emberwick is kept at 1140 degrees Celsius.", "05-09",
                    F))),
    ("duplicate", (("Taster sessions at Emberwick Glass are for over-16s only.", "02-07", F),
                   ("You have to be at least sixteen to book a glassblowing taster at Emberwick.",
                    "04-21", F),
                   ("Studio rule: nobody under 16 on an Emberwick taster.", "09-18", F))),
    ("duplicate", (("Dunmarsh juniors have to pass a swim test before they go out in a boat.",
                    "01-21", F),
                   (("No junior at Dunmarsh Rowing Club goes on the water until they've done the "
                     "swim test."), "06-14", F))),
    ("duplicate", (("Nobody rows from Dunmarsh when the Lenning is on red boards.", "02-11", F),
                   (("Safety briefing with the captain of boats. Red boards on the Lenning mean "
                     "no outings at all, for any crew."), "03-30", CF))),
    ("duplicate", (("Pelloe Press only prints on 100% cotton paper.", "01-28", F),
                   ("Every Pelloe job goes on pure cotton stock, nothing else.", "07-02", F))),
    ("duplicate", (("I tune all my clients' pianos to A440.", "02-18", F),
                   ("I tune all my clients' pianos to A440.", "08-05", F))),
    ("duplicate", (("Brightsteps appointments last 45 minutes.", "01-17", F),
                   ("Each session at Brightsteps is three quarters of an hour long.", "05-26",
                    F))),
    ("duplicate", (("Ffion Penhallow can't come in on Wednesdays.", "02-23", F),
                   ("Phone call with Mrs Penhallow. Wednesdays are no good for Ffion's appointments.",
                    "06-09", CF))),
    ("duplicate", (("The Skelwith Quay travel hoist can lift boats of up to 35 tonnes.", "03-01",
                    F),
                   ("Max lift on the Skelwith travel hoist: 35 t.", "08-16", F))),
    ("duplicate", (("Lingfold's minimum charge for any job is £40.", "01-06", F),
                   ("No Lingfold job is billed at less than forty pounds.", "04-15", F),
                   ("FYI Lingfold won't invoice under £40, whatever the word count.", "10-02",
                    F))),
    ("duplicate", (("Standard turnaround at Lingfold Translations is five working days.", "02-26",
                    F),
                   ("Lingfold's default turnaround for a job is a working week.", "07-19", F))),
    ("duplicate", (("Whiskerholme doesn't rehome kittens on their own, only in pairs.", "03-08",
                    F),
                   (("Kittens from Whiskerholme Cat Rescue only go to new homes in twos, never "
                     "singly."), "06-28", F))),
    ("duplicate", (("Hexfield charges a £5 per-person table fee.", "01-25", F),
                   ("It's five pounds a head to sit down and play at Hexfield.", "05-04", F))),
    ("duplicate", ((("The Carrow Moor observatory's public open nights are on the first Friday of "
                     "each month."), "02-14", F),
                   (("Per the society secretary, the public can visit the Carrow Moor observatory "
                     "on the first Friday of every month."), "09-06", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Emberwick buys its batch glass from Sandholt Minerals.", "01-10", F),
                    (("Our batch glass comes from Sandholt Minerals in 25 kg sacks, delivered "
                      "every other Thursday."), "03-04", FD))),
    ("refinement", ((("The Dunmarsh eight is called the Swiftlet. She's a carbon hull built in "
                      "2011, bought second-hand from a university boat club."), "02-02", F_D),
                    ("Dunmarsh's eight: the Swiftlet.", "04-06", F))),
    ("refinement", (("Pelloe has a Kluge platen press.", "02-21", F),
                    (("There's a Kluge platen at Pelloe Press, which we use for die-cutting and "
                      "foil blocking rather than printing."), "05-12", FD))),
    ("refinement", (("Brightsteps runs hydrotherapy sessions.", "03-11", F),
                    (("Brightsteps runs its hydrotherapy sessions on Saturday mornings in the "
                      "Fairlawn School pool, which is heated to 34°C."), "04-27", FD))),
    ("refinement", (("Owners can't do their own antifouling at Skelwith Quay.", "01-31", F),
                    (("Owners aren't allowed to antifoul their own boats at Skelwith Quay. The "
                      "yard does it for them with a copper-free paint, because of the oyster "
                      "beds just downstream."), "03-17", F_D))),
    ("refinement", ((("Clementine Varga translates German into English for Lingfold, mostly "
                      "pharmaceutical and medical-device documents, and she's sworn for "
                      "certified work."), "01-19", FD),
                    ("Clementine Varga does our DE>EN work.", "03-23", F))),
    ("refinement", (("Whiskerholme's adoption fee for an adult cat is £85.", "02-17", F),
                    (("The adoption fee for an adult Whiskerholme cat is £85. That covers "
                      "neutering, a microchip, first vaccinations and four weeks' free pet "
                      "insurance."), "05-20", F_D))),
    ("refinement", (("Hexfield runs a learn-to-play night every week.", "03-03", F),
                    (("Every Tuesday from 7pm Hexfield runs a learn-to-play night, where one of "
                      "the staff teaches two new games and the table fee is waived."), "06-16",
                     FD))),
    ("refinement", ((("The main telescope at Carrow Moor is a 16-inch Dobsonian. It sits under a "
                      "roll-off roof and had a computerised go-to mount fitted last year."),
                     "01-23", F_D),
                    ("Carrow Moor's main scope: a 16-inch Dob.", "05-31", F))),
    ("refinement", (("Mrs Abernethy has a Bechstein upright.", "02-09", F),
                    (("Mrs Abernethy's piano is a 1908 Bechstein upright in a cold north-facing "
                      "room, so it drifts flat every winter."), "04-04", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("An Emberwick taster session costs £65.", "01-27", OLD),
                ("Emberwick has put the taster session price up to £75.", "06-04", NEW))),
    ("update", (("Emberwick's hot shop manager is Elowen Tregarthen.", "02-03", OLD),
                ("Hot shop manager at Emberwick: Dashiell Fenlow.", "10-10", NEW))),
    ("update", (("Dunmarsh's head coach is Oisin Aske.", "01-08", OLD),
                ("Head coach at Dunmarsh: Oisin Aske.", "03-14", OLD),
                ("Dunmarsh AGM notes. Sigrun Hallett has replaced Oisin Aske as head coach.",
                 "09-27", CNEW))),
    ("update", (("Saturday outings at Dunmarsh go out at 7:30.", "02-25", OLD),
                ("Dunmarsh's Saturday outings now start at 8am, since it's still dark at half seven.",
                 "11-12", NEW))),
    ("update", (("Pelloe gets its photopolymer plates from Inkwright.", "01-12", OLD),
                ("Pelloe has switched its plate supplier from Inkwright to Ridgeway Platemakers.",
                 "07-07", NEW))),
    ("update", (("Pelloe's minimum order for business cards is 100.", "02-15", OLD),
                ("The minimum business card order at Pelloe is 250.", "08-24", NEW))),
    ("update", (("Brightsteps charges £70 for an initial assessment.", "01-30", OLD),
                ("Initial assessments at Brightsteps went up from £70 to £78.", "07-15", NEW))),
    ("update", (("Gwilym Lisk has physio every two weeks.", "03-06", OLD),
                (("Gwilym's sessions have dropped to once a month now that his walking has "
                  "improved."), "06-19", NEW))),
    ("update", (("Storage ashore at Skelwith Quay costs £9.50 per metre per week.", "01-16",
                 OLD),
                ("Skelwith Quay's ashore storage rate is now £11 a metre a week.", "05-05",
                 NEW))),
    ("update", (("The yard manager at Skelwith Quay is Torquil Menzies.", "02-20", OLD),
                (("Call with Skelwith Quay. Torquil Menzies has retired, and the new yard "
                  "manager is Aled Trevenna."), "08-29", CNEW))),
    ("update", (("Lingfold's rate for German into English is 11p per word.", "01-09", OLD),
                ("Lingfold charges 11p a word for German to English.", "04-01", OLD),
                ("German-English at Lingfold is 12p a word.", "09-14", NEW))),
    ("update", (("Lingfold does all its jobs in Wordfast.", "02-08", OLD),
                ("Lingfold moved its translators from Wordfast over to memoQ.", "06-23", NEW))),
    ("update", (("Whiskerholme's vet is Castlegate Veterinary Centre.", "01-22", OLD),
                ("Whiskerholme vet: Brookfield Vets.", "07-30", NEW))),
    ("update", (("Hexfield closes at 11pm on Fridays.", "02-12", OLD),
                ("Hexfield now stays open until midnight on Fridays.", "05-23", NEW))),
    ("update", (("Carrow Moor Astronomical Society membership is £30 a year.", "01-04", OLD),
                ("Annual membership of the Carrow Moor society: £36.", "10-17", NEW))),
    ("update", (("I charge £72 for a standard tuning.", "02-01", OLD),
                ("I've put my standard tuning fee up to £80.", "09-03", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Emberwick's annealer holds finished pieces at 480°C.", "03-19", A),
                       ("The annealing temperature at Emberwick is 515 degrees.", "03-19", B))),
    ("contradiction", (("Dunmarsh Rowing Club has 142 members.", "04-10", A),
                       ("There are 168 members at Dunmarsh.", "04-10", B))),
    ("contradiction", (("Brightsteps sees children up to the age of 16.", "03-02", A),
                       ("Brightsteps' upper age limit is 18.", "03-02", B))),
    ("contradiction", (("Skelwith Quay's slipway takes boats with up to 1.8 m draught.", "05-13",
                        A),
                       ("The Skelwith slipway only suits boats drawing under 1.5 m.", "05-13",
                        B))),
    ("contradiction", (("Whiskerholme has 23 cats in foster at the moment.", "06-03", A),
                       ("Whiskerholme currently has 31 cats with fosterers.", "06-03", B))),
    ("contradiction", (("Hexfield's game library has about 640 games.", "04-08", A),
                       ("There are roughly 900 games in the Hexfield library.", "04-08", B))),
    ("contradiction", (("The concert Steinway at Kilvert Hall is a Model D.", "03-21", A),
                       ("Kilvert Hall's Steinway is a Model B.", "03-21", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Bench 2 at Emberwick is rented to Isolde Brankin on Thursdays.",
                           "04-12", A),
                          ("Bench 3 at Emberwick is rented to Yolanda Strachan on Thursdays.",
                           "04-12", B))),
    ("distinct_related", (("The quad Sandpiper is out of use with a cracked rigger.", "05-18", A),
                          ("The double Petrel is out of use with a cracked rigger.", "05-18",
                           B))),
    ("distinct_related", (("Order LP-4412 is 150 wedding invitations for the Sallow wedding.",
                           "03-26", A),
                          (("Order LP-4421 is 150 wedding invitations for the Fairweather "
                            "wedding."), "03-26", B))),
    ("distinct_related", (("Ffion Penhallow is working on her balance with the wobble board.",
                           "04-18", A),
                          ("Osian Penhallow is working on his balance with the wobble board.",
                           "04-18", B))),
    ("distinct_related", (("The ketch Saltwhistle is ashore in bay C.", "10-08", A),
                          ("The sloop Merganser is ashore in bay F.", "10-08", B))),
    ("distinct_related", (("Job LF-0934 is a Polish to English contract due on Friday.", "06-05",
                           A),
                          ("Job LF-0943 is a Polish to English contract due on Friday.", "06-05",
                           B))),
    ("distinct_related", ((("Pimm, the one-eyed tabby, is FIV positive and needs an indoor-only "
                            "home."), "07-09", A),
                          (("Marmalade, the ginger longhair, is FIV positive and needs an "
                            "indoor-only home."), "07-09", B))),
    ("distinct_related", (("Table 6 at Hexfield is kept for the Friday Gloomhaven campaign.",
                           "02-27", A),
                          ("Table 9 at Hexfield is kept for the Sunday Gloomhaven campaign.",
                           "02-27", B))),
    ("distinct_related", (("Ansel Tindall is giving the society's March talk, on variable stars.",
                           "01-29", A),
                          ("Winifred Quaile is giving the society's April talk, on exoplanets.",
                           "01-29", B))),
    ("distinct_related", (("The Loweys' Kawai upright needs tuning every six months.", "05-22",
                           A),
                          ("The Nwachukwus' Kawai upright needs tuning every six months.",
                           "05-22", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("The glory hole burner went out in the middle of a class this morning.",
                   "05-17", A),
                  ("On 3 June the glory hole burner cut out during a class again.", "06-04",
                   B))),
    ("temporal", (("Ran a capsize drill for the novices today.", "04-13", A),
                  ("Another capsize drill for the novice squad yesterday.", "05-12", B),
                  ("On 8 June the novices did their capsize drill again.", "06-09", C))),
    ("temporal", (("The ceiling hoist in treatment room 1 jammed today.", "03-27", A),
                  ("Hoist in room 1 jammed again yesterday, engineer called.", "04-25", B))),
    ("temporal", ((("The travel hoist lost hydraulic pressure halfway through a lift this "
                    "morning."), "09-10", A),
                  ("On 21 September the travel hoist lost pressure again.", "09-22", B))),
    ("temporal", (("A stray mum and four kittens were brought in today.", "05-06", A),
                  ("Another mother cat with a litter came in yesterday.", "06-11", B),
                  ("On 6 August a third mum and kittens arrived.", "08-07", C))),
    ("temporal", (("A customer knocked a latte over a game board tonight.", "02-16", A),
                  ("Someone spilled coffee on a game board again last weekend.", "03-12", B))),
    ("temporal", (("Replaced a broken bass string on the Kilvert Hall Steinway today.", "04-22",
                   A),
                  (("On 12 November I replaced another broken string on the Kilvert Hall "
                    "Steinway."), "11-13", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Pelloe's type cabinets hold 214 cases of metal type.", "06-12", F),)),
    ("unrelated", (("Lingfold never runs legal documents through machine translation.", "08-20",
                    F),)),
    ("unrelated", (("Only red torches are allowed inside the Carrow Moor observatory dome.",
                    "07-25", F),)),
    ("unrelated", (("Emberwick's studio dog is a lurcher called Spindle.", "09-05", F),)),
    ("unrelated", (("The Dunmarsh boathouse key code changes every term.", "10-19", F),)),
    ("unrelated", (("Brightsteps has a sensory room with a bubble tube.", "07-21", F),)),
)

__all__ = ["LANTERN_HAND"]
