"""The ``unseen`` part of the decision set: hand-written groups only (issue #32).

A fourth held-out check, written after ``fresh``, ``blind`` and ``sealed``: its subjects,
holders, names and wordings appear nowhere in ``dev``, ``validation``, ``fresh``, ``blind``,
``sealed`` or the template families, and it was written as a user of agent memory would
write, without reading the rule agents, their tests or the documented figures. It covers a
personal assistant's user profile (health, diet, family, hobbies, travel, money), a coding
assistant's project notes (languages, versions, services, CI, the pager rota, conventions),
a customer-support knowledge base (policies, limits, prices, response times, taxes) and
meeting and conversation summaries with named people, in first and third person, terse notes
and longer ones, with hedges ("I think", "apparently", "if I remember right"). Duplicates and
refinements mix close rewordings with paraphrases that share few words, and include
three-member groups; updates mix explicit wordings ("switched", "moved", "no longer",
"replaced", "dropped", "was promoted to", "handed over", "pushed back", "broke up") with a new
value stated months later with no change word, across numbers, dates, places, employers,
roles, tools, versions, preferences and relationships; distinct groups include identifiers
that name a subject (tickets, rooms, releases, flights, pull requests), similar events on
different dates and two people with the same attribute. Every group has one outcome a
careful reader would agree with.

It was committed before any run and is meant to be run once, at the end of a session, with
the config being evaluated: ``memmaint eval decisions --part unseen``. Never tune on it.

Same format as :data:`~memmaint.datasets.decision_items.DEV_HAND`: ``(type, ((text, "MM-DD",
facts of each sentence), ...))``; all groups share one namespace, as one agent's store would.
"""

from __future__ import annotations

from memmaint.datasets.decision_items import FD, NEW, OLD, A, B, C, F, Hand

FDE = (("f", "d", "e"),)

UNSEEN_HAND: tuple[Hand, ...] = (
    # -- duplicate: one fact, said two or three times -----------------------------------------
    ("duplicate", (("Ximena is teetotal.", "01-12", F),
                   ("Ximena doesn't touch a drop of booze.", "04-03", F))),
    ("duplicate", (("Cormac sings bass in a barbershop quartet.", "02-05", F),
                   ("Cormac is the bass singer of a four-man barbershop group.", "05-20", F))),
    ("duplicate", (("Refunds go back to the original payment method.", "01-19", F),
                   (("KB: refunded money is always returned to the card or account the "
                     "customer paid with."), "03-08", F))),
    ("duplicate", (("The inventory service is written in Go.", "02-14", F),
                   ("inventory service: Golang codebase.", "03-21", F),
                   ("Note to self: the inventory service is a Go project.", "06-02", F))),
    ("duplicate", (("Sunniva is afraid of flying.", "01-26", F),
                   ("Sunniva has a fear of flying.", "02-29", F),
                   ("Planes scare Sunniva.", "07-15", F))),
    ("duplicate", (("Enterprise customers get a named technical contact.", "02-20", F),
                   (("Every enterprise account is assigned its own technical contact person "
                     "by name."), "05-09", F))),
    ("duplicate", (("Wendeline owns the database migration runbook.", "03-01", F),
                   ("The runbook for database migrations is Wendeline's responsibility.",
                    "04-24", F))),
    ("duplicate", (("The user's flat has underfloor heating.", "01-07", F),
                   ("My flat is heated through the floor.", "06-13", F))),
    ("duplicate", (("All commit messages must follow the Conventional Commits format.",
                    "02-11", F),
                   ("We write every commit message in Conventional Commits style.", "05-27",
                    F))),
    ("duplicate", ((("The staging cluster scales down to zero nodes at 20:00 UTC on "
                     "weekdays."), "03-13", F),
                   (("The staging cluster scales down to zero nodes at 20:00 UTC on "
                     "weekdays."), "04-30", F))),
    ("duplicate", (("I think Teodor is allergic to bee stings.", "02-23", F),
                   ("Teodor has a bee sting allergy.", "06-19", F))),
    ("duplicate", (("Apparently Leopold speaks fluent Swahili.", "03-17", F),
                   ("Leopold is fluent in Swahili.", "08-06", F))),
    # -- refinement: a fact and a more detailed statement of it -------------------------------
    ("refinement", (("The user plays chess.", "01-15", F),
                    (("The user plays chess online most evenings and is rated about 1650 on "
                      "Lichess."), "04-11", FD))),
    ("refinement", (("Leopold has a sailing dinghy.", "02-02", F),
                    ("Leopold keeps a wooden sailing dinghy, built from a kit, at the reservoir.",
                     "05-14", FD))),
    ("refinement", (("Annual subscriptions can be cancelled.", "01-24", F),
                    (("An annual subscription can be cancelled at any time, with a refund for "
                      "the unused whole months."), "03-26", FD))),
    ("refinement", (("The catalogue service caches query results.", "02-09", F),
                    (("The catalogue service caches query results in Memcached for ten "
                      "minutes."), "04-17", FD))),
    ("refinement", ((("Quarterly review with Mirela and Hamish. Hamish confirmed the Gdansk "
                      "office opens in September."), "03-04", (("c",), ("f", "d"))),
                    ("The Gdansk office opening is confirmed.", "05-02", F))),
    ("refinement", ((("The user is planning a self-drive trip to Namibia in August, camping "
                      "along the Skeleton Coast."), "01-30", FD),
                    ("The user is planning a trip to Namibia.", "03-11", F))),
    ("refinement", (("Ifeoma has twins.", "02-16", F),
                    ("Ifeoma has twin boys, Chidi and Obinna, who are six.", "06-08", FD))),
    ("refinement", (("The user has an emergency fund.", "03-19", F),
                    (("The user keeps an emergency fund of six months' expenses in an "
                      "easy-access savings account."), "07-22", FD))),
    ("refinement", (("The docs site uses MkDocs.", "01-10", F),
                    ("The docs site uses MkDocs with the Material theme.", "03-06", FD),
                    ("Docs: MkDocs, Material theme, deployed to Netlify on every merge to main.",
                     "06-25", FDE))),
    # -- update: an older value and a newer one -----------------------------------------------
    ("update", (("The user weighs 82 kg.", "02-10", OLD),
                ("The user weighs 76 kg.", "09-03", NEW))),
    ("update", (("The Kessler contract renewal is due on 30 April.", "01-22", OLD),
                ("The Kessler contract renewal was pushed back to 31 May.", "04-18", NEW))),
    ("update", (("Radek lives in Brno.", "01-08", OLD),
                ("Radek moved to Ostrava over the summer.", "09-16", NEW))),
    ("update", (("Oluwaseun works at Fernleaf Bank as a risk analyst.", "02-06", OLD),
                ("Oluwaseun no longer works at Fernleaf Bank, she's at Tidewater Insurance now.",
                 "07-11", NEW))),
    ("update", (("Philippa is a senior engineer on the fraud detection team.", "01-17", OLD),
                ("Philippa was promoted to engineering manager of the fraud detection team.",
                 "06-20", NEW))),
    ("update", (("The team tracks its work in Jira.", "02-27", OLD),
                ("Jira was replaced by Shortcut for tracking the team's work.", "05-06", NEW))),
    ("update", (("The API gateway runs Envoy 1.27.", "01-29", OLD),
                ("The API gateway runs Envoy 1.30.", "08-14", NEW))),
    ("update", (("The user works out first thing in the morning.", "02-18", OLD),
                ("The user does their workouts after dinner.", "10-07", NEW))),
    ("update", (("Bronagh carries the pager for the ingestion jobs.", "03-02", OLD),
                ("Bronagh handed the ingestion pager over to Zbigniew.", "05-29", NEW))),
    ("update", (("The Studio tier includes phone support.", "01-31", OLD),
                ("Phone support was dropped from the Studio tier.", "06-04", NEW))),
    ("update", (("The Crew tier costs 12 dollars per seat per month.", "02-12", OLD),
                ("The Crew tier is 15 dollars per seat per month.", "08-27", NEW))),
    ("update", (("Priority-one tickets get a first reply within 4 hours.", "03-15", OLD),
                ("Priority-one tickets now get a first reply within 1 hour.", "07-02", NEW))),
    ("update", (("The user browses with Firefox.", "01-05", OLD),
                ("The user switched from Firefox to Brave.", "04-22", NEW))),
    ("update", (("Casimir's girlfriend is Dorotea.", "01-28", OLD),
                ("If I remember right, Casimir's girlfriend is still Dorotea.", "03-18", OLD),
                ("Casimir and Dorotea broke up in the spring.", "06-30", NEW))),
    ("update", (("Yevgenia's team sits in the east wing of the Quayside building.", "02-21",
                 OLD),
                ("Yevgenia's team sits in the west wing of the Quayside building.", "10-14",
                 NEW))),
    # -- contradiction: two values written at the same instant --------------------------------
    ("contradiction", (("Marguerite was born in 1987.", "03-27", A),
                       ("Marguerite was born in 1989.", "03-27", B))),
    ("contradiction", (("The staging TLS certificate is renewed every 30 days.", "04-08", A),
                       ("The staging TLS cert gets renewed every 60 days.", "04-08", B))),
    ("contradiction", (("Free accounts can store up to 2 GB.", "05-15", A),
                       ("Free accounts get 5 GB of storage.", "05-15", B))),
    ("contradiction", (("The user's ring size is N.", "06-12", A),
                       ("The user wears a size P ring.", "06-12", B))),
    ("contradiction", (("Ottokar said the office move is set for the first week of March.",
                        "02-01", A),
                       ("Ottokar said the office move is set for the last week of April.",
                        "02-01", B))),
    ("contradiction", (("The user's car is a blue Volvo estate.", "07-09", A),
                       ("The user drives a grey Volvo estate.", "07-09", B))),
    # -- distinct_related: same topic, different facts or events ------------------------------
    ("distinct_related", (("Ticket HLP-3381: invoices show the wrong VAT number.", "04-02", A),
                          ("Ticket HLP-3390: invoices show the wrong company address.",
                           "04-05", B))),
    ("distinct_related", (("Room 7E seats twelve people.", "02-08", A),
                          ("Room 7F seats six people.", "02-08", B))),
    ("distinct_related", (("Release 5.2 added a CSV export to the desktop client.", "03-12",
                           A),
                          ("Release 5.3 added a PDF export to the desktop client.", "05-21",
                           B))),
    ("distinct_related", (("The user's outbound flight is KL1008 at 07:15.", "08-19", A),
                          ("The user's return flight is KL1013 at 19:40.", "08-19", B))),
    ("distinct_related", (("Ambrose speaks Tagalog.", "01-14", A),
                          ("Evander speaks Tagalog.", "04-26", B))),
    ("distinct_related", (("Ysolde sprained her ankle at netball in February.", "03-03", A),
                          ("Ysolde sprained her wrist at netball in June.", "07-07", B))),
    ("distinct_related", (("The user's Holidays savings pot has 1,200 pounds in it.", "05-05",
                           A),
                          ("The user's Car repairs savings pot has 400 pounds in it.",
                           "05-05", B))),
    ("distinct_related", (("The orders table is partitioned by month.", "02-25", A),
                          ("The events table is partitioned by day.", "03-09", B))),
    ("distinct_related", (("PR #4412 adds backoff to the mail relay client.", "06-03", A),
                          ("PR #4419 adds backoff to the push notifier.", "06-05", B),
                          ("PR #4420 adds request throttling to the push notifier.", "06-05",
                           C))),
    # -- temporal: events on different days ---------------------------------------------------
    ("temporal", (("Gunnhild had a nosebleed this morning.", "03-05", A),
                  ("Gunnhild had another nosebleed today.", "05-18", B))),
    ("temporal", (("The cron job that compacts the search index crashed yesterday.", "02-15",
                   A),
                  ("The index compaction cron crashed again yesterday.", "04-09", B))),
    ("temporal", (("On 3 February the user had a physiotherapy session.", "02-05", A),
                  ("The user had another physiotherapy session today.", "06-10", B))),
    ("temporal", (("Lucan ran a tabletop disaster-recovery exercise last week.", "01-23", A),
                  ("Lucan ran another disaster-recovery tabletop last week.", "05-13", B))),
    ("temporal", (("The user went to a life drawing class last weekend.", "03-25", A),
                  ("The user went to life drawing again last weekend.", "04-15", B),
                  ("Life drawing class yesterday, the user sketched a cyclist.", "06-23", C))),
    ("temporal", (("Customers couldn't sign in through SSO yesterday.", "07-17", A),
                  ("The SSO login was down for customers again today.", "09-24", B))),
    # -- unrelated: a single memory -----------------------------------------------------------
    ("unrelated", (("Bartholomew repairs antique clocks in his shed.", "02-19", F),)),
    ("unrelated", (("The user always books the quiet carriage on trains.", "04-04", F),)),
    ("unrelated", (("Support answers live chats in English and Welsh only.", "05-23", F),)),
    ("unrelated", (("The repo manages its packages with pnpm workspaces.", "07-25", F),)),
    ("unrelated", (("The user's cat sleeps on the shelf above the radiator.", "09-11", F),)),
)

__all__ = ["UNSEEN_HAND"]
