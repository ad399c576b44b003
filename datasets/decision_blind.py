"""The ``blind`` part of the decision set: hand-written groups only (issue #32).

A second held-out check, written after the ``fresh`` part had been read and fixed against:
its subjects, holders and wordings appear nowhere in ``dev``, ``validation``, ``fresh`` or the
template families. It reads like real agent memories: user profile facts and preferences,
work and project notes, support knowledge-base notes, conversation summaries with named
people, informal notes and hedges ("btw", "Heads-up:", "I think"), first and third person,
update wordings of every kind ("switched from X to Y", "now", "no longer", "replaced",
"instead", "extended from X to Y", a reversed decision, the same wording with a new value
months later), contradictions written at one instant, identifiers that name a subject (bugs,
flats, customers), relative and absolute dates. Every group has one outcome a careful reader
would agree with. It was run once, with the default config, and is never tuned against.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import Hand

F = (("f",),)
OLD = (("old",),)
NEW = (("new",),)
A = (("a",),)
B = (("b",),)
C = (("c",),)
FD = (("f", "d"),)

BLIND_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("The user is left-handed.", "01-12", F),
                   ("btw the user writes with their left hand.", "03-08", F))),
    ("duplicate", (("Hiroshi's wife is a pharmacist.", "02-03", F),
                   ("Hiroshi mentioned that his wife works as a pharmacist.", "04-18", F))),
    ("duplicate", (("Password reset links expire after 24 hours.", "01-20", F),
                   ("KB: a password reset link stays valid for one day.", "03-02", F))),
    ("duplicate", (("I take my tea with oat milk and no sugar.", "02-11", F),
                   ("The user drinks tea with oat milk, no sugar.", "05-06", F))),
    ("duplicate", (("Zainab grew up in Nairobi.", "01-27", F),
                   ("Zainab said she was raised in Nairobi.", "06-14", F))),
    ("duplicate", (("Timesheets are due every Friday by noon.", "02-07", F),
                   ("Timesheets must be submitted by 12:00 each Friday.", "04-22", F))),
    ("duplicate", (("The user doesn't own a TV.", "03-11", F),
                   ("User has no television.", "05-19", F))),
    ("duplicate", (("Mateo supports Atletico Madrid.", "02-15", F),
                   ("Mateo supports Atletico Madrid.", "07-30", F))),
    ("duplicate", (("The user's nephew Kofi is studying architecture.", "03-04", F),
                   ("Kofi, the user's nephew, studies architecture.", "04-29", F))),
    ("duplicate", (("Leila works remotely from Porto.", "02-09", F),
                   ("Leila is remote, based in Porto.", "03-16", F),
                   ("Heads-up: Leila works from Porto, fully remote.", "05-27", F))),
    ("duplicate", (("The support inbox is checked twice a day.", "03-21", F),
                   ("Support emails get checked two times daily.", "06-02", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("The user plays the cello.", "01-15", F),
                    ("The user plays the cello in a community orchestra.", "04-01", FD))),
    ("refinement", (("Tobias has a motorbike.", "02-12", F),
                    ("Tobias has a motorbike, a red Ducati he restored himself.", "05-22",
                     FD))),
    ("refinement", (("Esther is writing a thesis.", "01-23", F),
                    ("Esther is writing a thesis on coral reef bleaching, due in June.",
                     "03-30", FD))),
    ("refinement", (("Gold-tier customers have a dedicated account manager.", "02-16", F),
                    (("Gold-tier customers have a dedicated account manager, who runs a "
                      "quarterly review call with them."), "04-24", FD))),
    ("refinement", (("Callum has a twin.", "03-07", F),
                    ("Callum has a twin sister, Isla, who lives in Glasgow.", "06-19", FD))),
    ("refinement", (("The user keeps bees: two hives in the back garden, started in 2021.",
                     "02-20", FD),
                    ("The user keeps bees.", "05-12", F))),
    ("refinement", (("Yara has a parrot.", "04-05", F),
                    (("Yara and Femi talked about pets. Yara said her parrot, Kiwi, can say "
                      "about twenty words."), "04-26", (("c",), ("f", "d"))))),
    ("refinement", (("The user is saving for a house.", "01-29", F),
                    ("The user is saving for a house deposit, aiming for 30,000 pounds.",
                     "04-09", FD))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The user banks with Monzo.", "01-10", OLD),
                ("The user switched banks from Monzo to Starling.", "05-03", NEW))),
    ("update", (("Ingrid is a junior designer.", "02-01", OLD),
                ("Ingrid is now a senior designer.", "07-14", NEW))),
    ("update", (("The user is a smoker.", "01-13", OLD),
                ("User no longer smokes.", "05-10", NEW))),
    ("update", (("Support hours are 9am to 5pm.", "01-17", OLD),
                ("Support hours were extended from 9-5 to 8am-8pm.", "04-20", NEW))),
    ("update", (("The help centre is hosted on Zendesk.", "02-05", OLD),
                ("We replaced Zendesk with Intercom for the help centre.", "06-11", NEW))),
    ("update", (("Rafael takes the bus to work.", "01-26", OLD),
                ("Rafael walks to work instead of taking the bus these days.", "05-15",
                 NEW))),
    ("update", (("We decided to launch a newsletter in May.", "02-25", OLD),
                ("The plan to launch a newsletter in May was scrapped.", "04-13", NEW))),
    ("update", (("The user will not go to the school reunion in October.", "03-12", OLD),
                (("The user changed their mind and will go to the October school reunion "
                  "after all."), "06-21", NEW))),
    ("update", (("Mina's hourly rate is 60 euros.", "02-14", OLD),
                ("Mina's hourly rate is 75 euros.", "08-01", NEW))),
    ("update", (("The user's home internet is 100 Mbps fibre.", "03-03", OLD),
                ("The user's home internet is 500 Mbps fibre.", "09-09", NEW))),
    ("update", (("Dolores teaches at Riverside Primary.", "01-18", OLD),
                ("Dolores left Riverside Primary and now teaches at Hillcrest Academy.",
                 "06-05", NEW))),
    ("update", (("The staging server's IP address is 10.0.4.17.", "02-10", OLD),
                ("Staging moved to a new IP address: 10.0.9.2.", "05-08", NEW))),
    ("update", (("The user's favourite podcast is Hardcore History.", "01-08", OLD),
                ("User listens to Hardcore History more than any other podcast.", "02-22",
                 OLD),
                ("The user's favourite podcast these days is The Rest Is History.",
                 "07-19", NEW))),
    ("update", (("Siobhan coaches her son's football team.", "02-28", OLD),
                ("Siobhan told Ibrahim she no longer coaches her son's football team.",
                 "06-30", NEW))),
    # -- contradiction: two values written at the same instant --------------------------------
    ("contradiction", (("The user's wedding anniversary is on 14 June.", "03-10", A),
                       ("The user's wedding anniversary is on 4 July.", "03-10", B))),
    ("contradiction", (("Anouk has three siblings.", "05-04", A),
                       ("Anouk is an only child.", "05-04", B))),
    ("contradiction", (("The warranty on the X200 headphones is one year.", "02-19", A),
                       ("X200 headphones come with a two-year warranty.", "02-19", B))),
    ("contradiction", (("Keanu's flat is on the ground floor.", "06-12", A),
                       ("Keanu's flat is on the fourth floor.", "06-12", B))),
    ("contradiction", (("The user has brown eyes.", "04-15", A),
                       ("The user's eyes are blue.", "04-15", B))),
    ("contradiction", (("The server room door code is 4471.", "07-06", A),
                       ("The server room door code is 4417.", "07-06", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Bug #3312: the CSV import drops the header row.", "05-05", A),
                          ("Bug #3318: the CSV import fails on files over 50 MB.", "05-07",
                           B))),
    ("distinct_related", (("The user's older sister works as a vet.", "02-26", A),
                          ("The user's younger sister is a lawyer.", "02-26", B))),
    ("distinct_related", (("Ibrahim has been to Japan twice.", "03-23", A),
                          ("Ibrahim has been to South Korea once.", "04-11", B))),
    ("distinct_related", (("Customer NX-204 is on annual billing.", "06-09", A),
                          ("Customer NX-219 is on annual billing.", "06-09", B))),
    ("distinct_related", (("The user is reading Middlemarch.", "03-28", A),
                          ("The user is listening to the Dune audiobook.", "03-28", B))),
    ("distinct_related", (("Femi's son starts secondary school in September.", "04-16", A),
                          ("Femi's daughter starts nursery in September.", "04-16", B))),
    ("distinct_related", (("Android users can export their data from Settings > Account.",
                           "05-20", A),
                          ("iOS users can export their data from Profile > Privacy.", "05-20",
                           B))),
    ("distinct_related", (("The user loves jazz.", "01-22", A),
                          ("I think the user can't stand country music.", "03-19", B))),
    ("distinct_related", (("Flat 3B's boiler was serviced on 2 May.", "05-03", A),
                          ("Flat 3D's boiler was serviced on 2 May.", "05-03", B))),
    ("distinct_related", (("Esther gave a talk at the Hamburg conference.", "06-23", A),
                          ("Esther chaired a panel at the Hamburg conference.", "06-24", B))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Zainab had a migraine yesterday.", "02-08", A),
                  ("Zainab had another migraine yesterday.", "02-27", B))),
    ("temporal", (("Restarted the home router this morning because the internet dropped.",
                   "04-07", A),
                  ("The home router had to be restarted again today.", "04-21", B))),
    ("temporal", (("On 3 March Gustavo gave a guest lecture at the university.", "03-05", A),
                  ("On 17 April Gustavo gave another guest lecture at the university.",
                   "04-18", B))),
    ("temporal", (("Hiroshi said he went fishing with his father last weekend.", "05-13", A),
                  ("Hiroshi went fishing with his dad again last weekend.", "06-10", B))),
    ("temporal", (("The payment provider had an outage this morning.", "07-02", A),
                  ("The payment provider went down again today.", "07-23", B),
                  ("Another payment provider outage yesterday.", "08-11", C))),
    ("temporal", (("Mina visited her grandmother in hospital yesterday.", "09-05", A),
                  ("Mina went to see her grandmother in hospital yesterday.", "09-12", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("The user hates coriander.", "01-31", F),)),
    ("unrelated", (("Anouk knits her own socks.", "04-24", F),)),
    ("unrelated", (("The loading dock closes at 6 pm on Fridays.", "05-29", F),)),
    ("unrelated", (("I'd rather get bad news by phone than by email.", "06-17", F),)),
    ("unrelated", (("Keanu is thinking about learning to surf, maybe next summer.", "08-08",
                    F),)),
)

__all__ = ["BLIND_HAND"]
