"""The ``vault`` part of the decision set: hand-written groups only (issue #32).

An eighth held-out check, written after ``fresh``, ``blind``, ``sealed``, ``unseen``,
``hidden``, ``withheld`` and ``spare``: its subjects, holders, names and wordings appear
nowhere in the other parts or the template families, and it was written blind on 2026-11-29,
as the stores of agents people use would hold them, without reading the rule agents, their
tests or the documented failures. It covers a dental practice's patient notes (treatments,
allergies, recalls, the hygienist's book), a film production's call sheets (locations, scenes,
crew, the wrap date), a farm's livestock records (the dairy herd, ewes, the bull, feed), a
university admissions office (entry rules, deadlines, places, interviews, open days), a
bike-share fleet operator (stations, e-bikes, fares, repairs), a choir director's notes (parts,
rehearsals, the pianist, concerts), a mobile game's live-ops notes (events, offers, builds, bug
reports, prices), a small law firm's matter notes (fees, hearings, limitation dates, the other
side's solicitors), a marathon training log (pace, heart rate, mileage) and a home renovation
project (the builder, the kitchen, a conservatory, flooring, the skip). Styles: full sentences,
terse notes ("Live build: 3.8.2.", "Starter bundle: hidden from anyone past level 30."), first
person ("On easy days I keep my heart rate under 145."), openers ("Note:", "FYI", "Per Dr
Osei,", "Live-ops:"), abbreviations ("DoP", "MSc", "UTC", "HR", "km"), meeting notes whose first
sentence names the meeting. Duplicates mix paraphrases with synonyms, reordered clauses and
different frames, three-member groups and one exact copy; refinements add details in the
same sentence or in a sentence of their own, with the detailed memory sometimes first; updates
mix change wordings ("extended", "now", "switched", "moved", "went up", "has taken over", "handed",
"revised", "cancelled ... instead", "down to") with a new value restated months later with no
change word; contradictions are two values saved at the same instant; distinct groups differ by
a patient record code, a scene number, an ear tag, an applicant, a bike, a voice part and room,
a bug report, a matter number, a month or a room, sometimes by that alone; temporal groups
repeat an event on different days, with relative words and absolute dates. Every group has one
outcome a careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part vault``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

CF = (("c",), ("f",))
CNEW = (("c",), ("new",))
F_D = (("f",), ("d",))

VAULT_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Gudrun Haverkamp-Lowe needs antibiotic cover before any extraction.",
                    "01-13", F),
                   (("Per Dr Osei, no extractions for Gudrun Haverkamp-Lowe unless she has "
                     "taken antibiotics beforehand."), "03-09", F),
                   (("Before we pull a tooth for Gudrun Haverkamp-Lowe she has to be on "
                     "prophylactic antibiotics."), "06-17", F))),
    ("duplicate", ((("Drones can't be flown over the Gannet Wharf location without the "
                     "harbour master's sign-off."), "02-04", F),
                   ("FYI the harbour master has to approve any drone shot at Gannet Wharf.",
                    "03-22", F))),
    ("duplicate", (("Our Jersey herd is milked at 5:30 and 16:30.", "01-21", F),
                   (("Milking times for the Jerseys: half five in the morning and half four "
                     "in the afternoon."), "05-08", F))),
    ("duplicate", (("International applicants need an IELTS score of at least 6.5.", "02-11",
                    F),
                   (("Meeting with the admissions tutors. Overseas applicants still need 6.5 "
                     "overall in IELTS."), "04-27", CF))),
    ("duplicate", (("E-bikes are pulled from service once the battery drops below 15%.",
                    "01-25", F),
                   ("Any e-bike under 15 percent charge gets taken off the street.", "03-30",
                    F))),
    ("duplicate", (("Clemency Rooke sings alto but can cover the tenor line in a pinch.",
                    "02-09", F),
                   (("If we're short of tenors, Clemency Rooke can step across from the "
                     "altos."), "05-26", F))),
    ("duplicate", (("Daily login rewards reset at 04:00 UTC.", "01-30", F),
                   ("Live-ops: the daily reward rollover happens at 4am UTC.", "04-06", F))),
    ("duplicate", (("The Gallowglass matter is billed at a fixed fee, not by the hour.",
                    "02-18", F),
                   ("No hourly billing on Gallowglass, we agreed a flat fee.", "06-03", F))),
    ("duplicate", (("I do my longest run of the week on Sunday mornings.", "01-11", F),
                   ("My big weekly run is always early on a Sunday.", "03-16", F))),
    ("duplicate", ((("Lachlan the builder can't start before 8 because of the street's noise "
                     "rules."), "02-23", F),
                   ("No work at the house before 8am, council noise rules, Lachlan says.",
                    "04-19", F))),
    ("duplicate", ((("Beaumont Crescent Dental sees emergency patients first thing each "
                     "morning."), "01-16", F),
                   (("Beaumont Crescent Dental sees emergency patients first thing each "
                     "morning."), "07-21", F))),
    ("duplicate", (("The admissions office answers applicant emails within five working days.",
                    "02-02", F),
                   ("Applicants get a reply from admissions in no more than 5 business days.",
                    "03-27", F),
                   ("Note: our turnaround on applicant emails is five working days at most.",
                    "08-12", F))),
    ("duplicate", (("Players over level 30 never see the starter bundle offer.", "02-14", F),
                   ("Starter bundle: hidden from anyone past level 30.", "05-13", F))),
    ("duplicate", (("My easy-run HR cap is 145 bpm.", "01-19", F),
                   ("On easy days I keep my heart rate under 145.", "02-26", F),
                   ("Easy runs stay below 145 beats per minute.", "06-09", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("Crispin Corrigan-Vale needs a crown on a back tooth.", "01-23", F),
                    (("Crispin Corrigan-Vale needs a porcelain crown on his lower left first "
                      "molar, fitted over two visits."), "03-03", FD))),
    ("refinement", (("Scene 42 needs rain towers.", "02-06", F),
                    (("Scene 42 needs two rain towers from Dampfield FX, operated by their own "
                      "crew."), "02-20", FD))),
    ("refinement", ((("The Suffolk ewes lamb in March in the lower barn, with the vet from "
                      "Brackley on call."), "01-28", FD),
                    ("The Suffolk ewes lamb in March.", "04-14", F))),
    ("refinement", (("Mature students can get in without the usual entry qualifications.",
                     "02-13", F),
                    (("We accept mature applicants who lack standard entry qualifications. They "
                      "have to be 21 or older and have finished an access course."), "05-20",
                     F_D))),
    ("refinement", (("The Orrell Yard depot handles bike repairs.", "01-08", F),
                    (("Orrell Yard depot handles bike repairs, with two mechanics on weekdays "
                      "and one on Saturdays."), "04-23", FD))),
    ("refinement", (("Cantilena Singers perform the Fauré Requiem this spring.", "01-27", F),
                    (("This spring Cantilena Singers perform Fauré's Requiem, the 1893 version "
                      "with chamber orchestra, at St Brannock's."), "03-06", FD))),
    ("refinement", (("The Ember Tide event has a leaderboard.", "02-16", F),
                    (("The Ember Tide event has an alliance leaderboard with prizes for the top "
                      "50 alliances."), "03-24", FD))),
    ("refinement", ((("The Pennycress lease dispute is listed for a two-day hearing at the "
                      "county court in Ipswich."), "03-11", FD),
                    ("The Pennycress lease dispute is going to a hearing.", "06-05", F))),
    ("refinement", (("I'm signed up for the Tollbridge Marathon.", "01-06", F),
                    ("I'm signed up for the Tollbridge Marathon in October, aiming for sub-3:30.",
                     "02-22", FD))),
    ("refinement", (("A conservatory is being added at the back of the house.", "02-25", F),
                    (("A conservatory is being added at the back of the house, with a glass roof "
                      "and bifold doors onto the patio, built by Kessock Glazing."), "05-04",
                     FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The hygienist's appointments are 30 minutes long.", "01-20", OLD),
                ("Hygiene appointments were extended to 45 minutes.", "05-18", NEW))),
    ("update", (("Dr Osei works at the practice on Mondays and Thursdays.", "02-03", OLD),
                ("Dr Osei now does Tuesdays and Fridays at the practice.", "07-07", NEW))),
    ("update", (("Our DoP is Maud Vantongeren.", "01-09", OLD),
                (("Maud Vantongeren has left the production and Ignatius Achebe-Rudd is DoP "
                  "from week three."), "03-13", NEW))),
    ("update", (("Wrap is scheduled for 14 August.", "03-10", OLD),
                ("Principal photography wraps on 2 September.", "07-01", NEW))),
    ("update", (("We have 64 cows in the Jersey herd.", "02-08", OLD),
                ("After the autumn sale the Jersey herd is down to 52 cows.", "10-14", NEW))),
    ("update", (("Feed for the cattle comes from Marlpit Mills.", "01-14", OLD),
                ("We switched the cattle feed supplier to Cobbold & Ware.", "06-10", NEW))),
    ("update", (("The application deadline for the MSc in Hydrology is 31 March.", "01-17",
                 OLD),
                ("MSc Hydrology applications now close on 30 April.", "03-05", NEW))),
    ("update", (("Gwendolyn Pryce-Aster coordinates the university open days.", "02-10",
                 OLD),
                ("Open days at the university are coordinated by Tamsin Ekwueme.", "09-02",
                 NEW))),
    ("update", (("A bike-share ride costs €1.80 for the first 30 minutes.", "01-12", OLD),
                ("The first half hour of a bike-share ride went up to €2.10.", "06-25", NEW))),
    ("update", (("The fleet has 430 bikes on the street.", "02-12", OLD),
                ("We run 620 bikes across the city.", "08-18", NEW))),
    ("update", (("Cantilena Singers rehearse on Tuesday evenings in the church hall.", "01-07",
                 OLD),
                ("Rehearsals moved to Wednesday evenings at the Quaker meeting house.", "04-08",
                 NEW))),
    ("update", (("Cosimo plays piano for Cantilena Singers.", "01-15", OLD),
                ("Thaddeus Greaves has taken over from Cosimo as the choir's pianist.", "05-23",
                 NEW))),
    ("update", (("Live build: 3.8.2.", "02-17", OLD),
                ("The live build is 3.9.0.", "04-29", NEW))),
    ("update", ((("The other side's solicitor on the Thistlewood probate is Ruaraidh "
                  "Blenkinsop."), "02-05", OLD),
                (("Case meeting on Thistlewood with Perdita. Ruaraidh Blenkinsop has handed the "
                  "file to his colleague Ngozi Arbuthnot."), "05-06", CNEW))),
    ("update", (("My marathon goal pace is 5:10 per km.", "01-04", OLD),
                ("Goal pace revised to 4:58/km after the half.", "04-12", NEW))),
    ("update", (("The kitchen units are coming from Harwick Joinery.", "01-22", OLD),
                ("Harwick Joinery is making our kitchen units.", "03-04", OLD),
                (("We cancelled Harwick Joinery and ordered the kitchen from Brennholt Kitchens "
                  "instead."), "06-14", NEW))),
    # -- contradiction: two values saved at the same instant ----------------------------------
    ("contradiction", (("Fergus Fitzwilliam-Oduya is allergic to chlorhexidine.", "03-12", A),
                       ("Fergus Fitzwilliam-Oduya has no known allergies.", "03-12", B))),
    ("contradiction", (("The Gannet Wharf shoot is on day 12 of the schedule.", "04-03", A),
                       ("Gannet Wharf is scheduled for shoot day 15.", "04-03", B))),
    ("contradiction", (("The Hereford bull weighs 1,040 kg.", "05-15", A),
                       ("Our Hereford bull comes in at 1,190 kg.", "05-15", B))),
    ("contradiction", (("The MA in Archival Science has 40 places.", "02-21", A),
                       ("There are 28 places on the Archival Science MA.", "02-21", B))),
    ("contradiction", (("Station 114 has 24 docks.", "06-02", A),
                       ("There are 30 docks at Station 114.", "06-02", B))),
    ("contradiction", (("In Brazil the gem pack costs R$ 24.90.", "03-17", A),
                       ("The gem pack sells for R$ 19.90 in Brazil.", "03-17", B))),
    ("contradiction", (("The limitation period on the Ormsby claim runs out in June.", "04-16",
                        A),
                       ("Ormsby's limitation date is in September.", "04-16", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Record DX-6692 is due a six-month recall in May.", "02-15", A),
                          ("Record DX-6629 is due a six-month recall in May.", "02-15", B))),
    ("distinct_related", (("Scene 17 needs eight background extras.", "03-02", A),
                          ("Scene 71 needs eight background extras.", "03-02", B))),
    ("distinct_related", (("Cow UK-2231 is in calf, due in April.", "01-24", A),
                          ("Cow UK-2245 is in calf, due in May.", "01-24", B))),
    ("distinct_related", ((("Applicant Anastazja Strand-Okafor has an interview on 12 "
                            "February."), "01-29", A),
                          ("Applicant Lisbeth Scholz-Mensah has an interview on 12 February.",
                           "01-31", B))),
    ("distinct_related", (("Bike 8520's rear brake was fixed yesterday.", "05-12", A),
                          ("Bike 8527's rear brake was fixed yesterday.", "05-19", B))),
    ("distinct_related", (("The sopranos rehearse sectionally in Room 3.", "02-24", A),
                          ("The tenors rehearse sectionally in Room 5.", "02-24", B))),
    ("distinct_related", (("Bug report GL-7410: the shop crashes on Android 12.", "06-08", A),
                          ("Bug report GL-7417: the shop crashes on iOS 17.", "06-08", B),
                          ("Bug report GL-7423: the shop crashes on tablets in landscape.",
                           "06-09", C))),
    ("distinct_related", (("Matter 2024-118 is a boundary dispute for the Quarrie family.",
                           "03-19", A),
                          ("Matter 2024-131 is a boundary dispute for the Lindgren-Hale family.",
                           "04-02", B))),
    ("distinct_related", (("I ran 212 km in March.", "04-01", A),
                          ("I ran 245 km in April.", "05-01", B))),
    ("distinct_related", (("Engineered oak flooring is going into the home office.", "03-08",
                           A),
                          ("Engineered oak flooring is going into the guest bedroom.", "03-08",
                           B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Honoria Ravensworth came in with a dental abscess today.", "02-27", A),
                  ("On 9 August Honoria Ravensworth was back with another abscess.", "08-10",
                   B))),
    ("temporal", (("We lost two hours to rain on set today.", "03-18", A),
                  ("Rain stopped filming again yesterday afternoon.", "04-21", B))),
    ("temporal", (("A fox got into the poultry shed last night and killed three birds.", "02-19",
                   A),
                  ("On 3 November a fox killed two more birds in the poultry shed.", "11-04",
                   B))),
    ("temporal", (("Vandals damaged the docks at Pellow Street station today.", "04-10", A),
                  ("Pellow Street station was vandalised again last week.", "07-15", B),
                  ("On 21 October the Pellow Street docks were smashed for the third time.",
                   "10-22", C))),
    ("temporal", (("Tonight's summer concert at Lathom Hall sold out.", "06-28", A),
                  ("The carol concert at Lathom Hall on 13 December sold out as well.", "12-14",
                   B))),
    ("temporal", (("The game servers dropped everyone for 40 minutes this morning.", "05-27",
                   A),
                  ("Another server crash kicked players off yesterday, about an hour.", "07-09",
                   B))),
    ("temporal", (("Ran 32 km today on the canal towpath, legs felt heavy.", "08-04", A),
                  ("On 22 September I covered 32 km again.", "09-23", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("The practice orders examination gloves in sizes small and medium only.",
                    "05-22", F),)),
    ("unrelated", (("Any scene with pyrotechnics needs a fire officer on set.", "03-25", F),)),
    ("unrelated", (("The quad's keys hang on the hook in the tack room.", "07-17", F),)),
    ("unrelated", (("Closed client files are destroyed after seven years.", "09-08", F),)),
    ("unrelated", (("The neighbours at number 14 asked us to keep the skip off their drive.",
                    "05-09", F),)),
    ("unrelated", (("The admissions office moves to the Kinnaird Building over the summer.",
                    "06-22", F),)),
)

__all__ = ["VAULT_HAND"]
