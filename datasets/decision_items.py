"""The template families behind :mod:`memmaint.datasets.decisions` (issue #32).

Every text here was written for this set. A :class:`Family` is one subject area: the holders
it is said of ("Maya", "The billing service"), the values its slot takes (a timezone, an
employer, a price, a version, a tool, a name ...), paraphrase templates of the fact, update
wordings, details that refine it, related but different facts, and past events. The two parts
use **different families and different holders**: the tuning part (``dev``) and the
validation part (``validation``) share no template and no subject.

Template fields: ``{H}`` the holder at a sentence start, ``{h}`` the holder inside a sentence,
``{P}`` / ``{p}`` its possessive, ``{v}`` the value, ``{old}`` the value an update replaces,
``{date}`` an absolute date ("12 March"). No template contains an inner sentence break
(``.``, ``!``, ``?`` or ``;`` followed by a space): the scorer reads texts sentence by sentence.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """One subject area of the decision set (see the module docstring).

    ``details`` pairs an extra sentence (a second fact) with one sentence stating both the
    fact and that detail; ``events`` pairs a relative-time event with the same kind of event
    carrying an absolute date. ``updates`` is empty where the value does not change (a pet's
    name, an allergy); ``related`` lists different facts on the same topic.
    """

    key: str
    holders: tuple[str, ...]
    values: tuple[str, ...]
    state: tuple[str, ...]
    updates: tuple[str, ...] = ()
    details: tuple[tuple[str, str], ...] = ()
    related: tuple[str, ...] = ()
    events: tuple[tuple[str, str], ...] = ()


_DEV_PEOPLE = ("The user", "Maya", "Tom", "Priya", "Lukas", "Aisha")
_VAL_PEOPLE = ("The client", "Sofia", "Kenji", "Amara", "Dmitri", "Grace")

DEV_FAMILIES: tuple[Family, ...] = (
    Family(
        "timezone", _DEV_PEOPLE,
        ("Europe/Paris", "Europe/Berlin", "America/Chicago", "Asia/Tokyo", "America/Toronto"),
        ("{P} timezone is {v}.", "{H} is on {v} time.", "{H} works in the {v} timezone.",
         "Schedule anything for {h} in {v} time."),
        ("{P} timezone is now {v}.", "{H} moved from {old} to the {v} timezone."),
        (("{H} starts work at 8:30 local time.",
          "{H} is on {v} time and starts work at 8:30."),),
        ("{H} prefers calls before 11:00.", "{P} calendar shows a 24-hour clock.",
         "{H} blocks Friday afternoons for focus work."),
    ),
    Family(
        "employer", _DEV_PEOPLE,
        ("Acme", "Globex", "Initech", "Hooli", "Vandelay Industries"),
        ("{H} works at {v}.", "{P} employer is {v}.", "{H} is employed by {v}.",
         "{H} has a job at {v}."),
        ("{H} now works at {v}.", "{H} left {old} and joined {v}."),
        (("{H} is a data engineer there.", "{H} works at {v} as a data engineer."),
         ("{H} leads a team of four.", "{H} works at {v} and leads a team of four.")),
        ("{H} commutes by train three days a week.", ("{H} is paid on the last Friday of "
         "the month."), "{P} manager reviews code every Thursday."),
    ),
    Family(
        "dog", _DEV_PEOPLE,
        ("Biscuit", "Pepper", "Miso", "Waffles", "Juno"),
        ("{H} has a dog named {v}.", "{P} dog is called {v}.", "{H} owns a dog called {v}.",
         "{P} dog's name is {v}."),
        (),
        (("{P} dog is a three-year-old beagle.", "{P} dog {v} is a three-year-old beagle."),
         ("{P} dog is scared of thunderstorms.",
          "{P} dog {v} is scared of thunderstorms.")),
        ("{P} dog eats grain-free food.", "{P} dog goes to daycare on Wednesdays.",
         "{P} dog needs a walk before 7:00."),
        (("{H} took the dog to the vet yesterday.", "On {date} {h} took the dog to the vet."),
         ("{P} dog got its vaccinations this morning.",
          "On {date} the dog of {h} got its vaccinations."),
         ("{H} walked the dog along the canal last weekend.",
          "On {date} {h} walked the dog along the canal.")),
    ),
    Family(
        "allergy", _DEV_PEOPLE,
        ("peanuts", "shellfish", "penicillin", "cat hair", "pollen"),
        ("{H} is allergic to {v}.", "{H} has an allergy to {v}.",
         "{H} reacts badly to {v}.", "Avoid {v} around {h}: allergy."),
        (),
        (("{H} carries an epinephrine pen.",
          "{H} is allergic to {v} and carries an epinephrine pen."),),
        ("{H} is lactose intolerant.", "{H} does not eat pork.",
         "{H} takes antihistamines in spring."),
    ),
    Family(
        "standup", ("The team", "The design team", "The platform team", "The mobile team"),
        ("Mondays at 9:15", "Tuesdays at 9:30", "Wednesdays at 10:00", "Thursdays at 8:45"),
        ("{P} standup is on {v}.", "{H} holds its standup on {v}.",
         "{H} meets for the daily standup on {v}."),
        ("{P} standup moved to {v}.", "{P} standup is now on {v}."),
        (("The standup lasts fifteen minutes.",
          "{P} standup is on {v} and lasts fifteen minutes."),),
        ("{H} runs a retrospective every second Friday.", "{H} demos work to sales monthly.",
         "{H} tracks tasks on a Kanban board."),
    ),
    Family(
        "price", ("The Pro plan", "The Team plan", "The Starter plan", "The Enterprise plan"),
        ("$29 per month", "$39 per month", "$12 per month", "$99 per month", "$49 per month"),
        ("{H} costs {v}.", "{H} is priced at {v}.", "The price of {h} is {v}."),
        ("{H} now costs {v}.", "{H} went up from {old} to {v}."),
        (("{H} includes priority support.", "{H} costs {v} and includes priority support."),),
        ("{H} allows up to ten seats.", "{H} has a 14-day free trial.",
         "{H} is billed annually by default."),
    ),
    Family(
        "editor", _DEV_PEOPLE,
        ("VS Code", "Neovim", "PyCharm", "Emacs", "Sublime Text"),
        ("{H} writes code in {v}.", "{P} editor is {v}.", "{H} uses {v} as the code editor."),
        ("{H} switched from {old} to {v}.", "{H} now codes in {v}."),
        (("{H} uses a dark colour theme.", "{H} writes code in {v} with a dark colour theme."),),
        ("{H} formats Python with Black.", "{H} runs tests before every commit.",
         "{H} reviews pull requests in the morning."),
    ),
    Family(
        "city", _DEV_PEOPLE,
        ("Lyon", "Porto", "Leeds", "Graz", "Utrecht"),
        ("{H} lives in {v}.", "{P} home is in {v}.", "{H} is based in {v}."),
        ("{H} moved to {v}.", "{H} relocated from {old} to {v}."),
        (("{H} lives near the central station.", "{H} lives in {v} near the central station."),),
        ("{P} sister lives on the coast.", "{H} rents a flat with a balcony.",
         "{H} cycles to the office."),
        (("{H} flew home to see family last week.", "On {date} {h} flew home to see family."),
         ("{H} went to a housewarming party yesterday.",
          "On {date} {h} went to a housewarming party.")),
    ),
    Family(
        "python", ("The billing service", "The data pipeline", "The web app",
                   "The reporting job"),
        ("Python 3.10", "Python 3.11", "Python 3.12", "Python 3.9"),
        ("{H} runs on {v}.", "{H} is built for {v}.", "{H} targets {v}."),
        ("{H} was upgraded to {v}.", "{H} now runs on {v}."),
        (("{H} is deployed with Docker.", "{H} runs on {v} and is deployed with Docker."),),
        ("{H} has a nightly backup.", "{H} logs to a central server.",
         "{H} is owned by the platform group."),
    ),
    Family(
        "coffee", _DEV_PEOPLE,
        ("an oat flat white", "a double espresso", "a cortado", "a decaf latte"),
        ("{H} always orders {v}.", "{P} usual coffee is {v}.", "{H} drinks {v} every morning."),
        ("{H} now orders {v} instead.",),
        (("{H} takes it without sugar.", "{H} always orders {v} without sugar."),),
        ("{H} skips coffee after 14:00.", "{H} brings a reusable cup.",
         "{H} buys beans from a local roaster."),
        (("{H} tried the new cafe on the corner yesterday.",
          "On {date} {h} tried the new cafe on the corner."),),
    ),
    Family(
        "running", _DEV_PEOPLE, ("5 km", "10 km", "half marathon"),
        ("{H} runs {v} on weekends.",),
        (),
        (),
        (),
        (("{H} ran a 10 km race yesterday.", "On {date} {h} ran a 10 km race."),
         ("{H} went for a long run by the river this morning.",
          "On {date} {h} went for a long run by the river."),
         ("{H} hurt an ankle while running last week.",
          "On {date} {h} hurt an ankle while running.")),
    ),
)

#: Identifier families: memories that differ by the number naming their subject.
DEV_IDS: tuple[str, ...] = (
    "Invoice {n} was paid on {d} March.",
    "Ticket #{n} is assigned to {name}.",
    "Order {n} was refunded to {name}.",
    "Game {n}: keep {k} removal spells against aggro.",
)
DEV_NAMES = ("Jonas", "Elif", "Marco", "Hana", "Ravi", "Nina")

VAL_FAMILIES: tuple[Family, ...] = (
    Family(
        "carrier", _VAL_PEOPLE,
        ("Vodafone", "Orange", "Telia", "Movistar", "Swisscom"),
        ("{P} mobile carrier is {v}.", "{H} gets phone service from {v}.",
         "{H} uses {v} for mobile.", "{P} phone contract is with {v}."),
        ("{P} mobile carrier is now {v}.", "{H} changed from {old} to {v} for mobile."),
        (("{H} has unlimited data.", ("{P} phone contract is with {v} and has unlimited "
          "data.")),),
        ("{H} keeps a second SIM for travel.", "{P} phone bill is due on the 5th.",
         "{H} turns off roaming abroad."),
    ),
    Family(
        "laptop", _VAL_PEOPLE,
        ("ThinkPad X1", "MacBook Air", "Dell XPS 13", "Framework 13", "Surface Laptop"),
        ("{P} work laptop is a {v}.", "{H} works on a {v}.", "{H} was issued a {v} laptop."),
        ("{P} work laptop is now a {v}.", "{H} replaced the {old} with a {v}."),
        (("The laptop has 32 GB of memory.", ("{P} work laptop is a {v} with 32 GB of "
          "memory.")),),
        ("{H} uses an external keyboard.", "{P} monitor is a 27-inch display.",
         "{H} keeps the laptop encrypted."),
        (("{P} laptop screen cracked yesterday.", ("On {date} the laptop screen of {h} "
          "cracked.")),
         ("{H} sent the laptop in for repair last week.",
          "On {date} {h} sent the laptop in for repair.")),
    ),
    Family(
        "gp", _VAL_PEOPLE,
        ("Dr Okafor", "Dr Lindqvist", "Dr Mendes", "Dr Haddad", "Dr Novak"),
        ("{P} family doctor is {v}.", "{P} GP is {v}.", "{H} sees {v} as the GP."),
        ("{P} GP is now {v}.", "{H} changed GP from {old} to {v}."),
        (("The practice is open on Saturday mornings.",
          "{P} GP is {v}, whose practice is open on Saturday mornings."),),
        ("{H} has a blood test every six months.", "{H} wears glasses for reading.",
         "{H} had a flu shot in October."),
        (("{H} had a check-up yesterday.", "On {date} {h} had a check-up."),
         ("{H} picked up a prescription this morning.",
          "On {date} {h} picked up a prescription.")),
    ),
    Family(
        "database", ("The orders database", "The analytics cluster", "The auth service",
                     "The search index"),
        ("PostgreSQL 14", "PostgreSQL 15", "PostgreSQL 16", "MySQL 8.0"),
        ("{H} uses {v}.", "{H} sits on {v}.", "The engine behind {h} is {v}."),
        ("{H} was migrated from {old} to {v}.", "{H} is now on {v}."),
        (("{H} is replicated to a second region.", ("{H} uses {v}, replicated to a second "
          "region.")),),
        ("{H} is vacuumed every Sunday night.", "{H} keeps 30 days of point-in-time backups.",
         "{H} is monitored by the on-call rota."),
    ),
    Family(
        "flight", ("The Lisbon flight", "The Oslo flight", "The Madrid flight",
                   "The Vienna flight"),
        ("07:40", "10:15", "13:05", "18:50"),
        ("{H} departs at {v}.", "{H} leaves at {v}.", "Departure time for {h}: {v}."),
        ("{H} was rescheduled to {v}.", "{H} now departs at {v}."),
        (("Boarding closes twenty minutes before departure.",
          "{H} departs at {v} and boarding closes twenty minutes before."),),
        ("{H} allows one cabin bag.", "{H} has no meal service.",
         "{H} leaves from terminal 2."),
    ),
    Family(
        "rent", _VAL_PEOPLE,
        ("£1,200 a month", "£1,350 a month", "£980 a month", "£1,500 a month"),
        ("{H} pays {v} in rent.", "{P} rent is {v}.", "The rent for {p} flat is {v}."),
        ("{P} rent went up to {v}.", "{P} rent is now {v}."),
        (("Bills are included in the rent.", "{P} rent is {v} with bills included."),),
        ("{P} landlord prefers email.", "{P} lease ends in September.",
         "{H} shares the flat with one other person."),
    ),
    Family(
        "language", _VAL_PEOPLE,
        ("Japanese", "Korean", "Portuguese", "Turkish", "Greek"),
        ("{H} is learning {v}.", "{H} studies {v} in the evenings.",
         "{H} takes {v} lessons."),
        ("{H} switched from {old} to {v} lessons.", "{H} is now learning {v}."),
        (("{H} practises with a tutor twice a week.",
          "{H} is learning {v} with a tutor twice a week."),),
        ("{H} reads the news in English.", "{H} grew up speaking Spanish at home.",
         "{H} uses flashcards on the bus."),
        (("{H} passed a language exam yesterday.", "On {date} {h} passed a language exam."),),
    ),
    Family(
        "class", ("The pottery class", "The choir", "The book club", "The climbing group"),
        ("Thursdays at 18:00", "Mondays at 19:30", "Saturdays at 10:00", "Wednesdays at 17:45"),
        ("{H} meets on {v}.", "{H} gets together on {v}.", "Sessions of {h} are on {v}."),
        ("{H} moved to {v}.", "{H} now meets on {v}."),
        (("Sessions last two hours.", "{H} meets on {v} for two hours."),),
        ("{H} charges a small fee per term.", "{H} has twelve members.",
         "{H} takes a break in August."),
    ),
    Family(
        "deploy", ("The infra team", "The payments team", "The growth team", "The data team"),
        ("Terraform", "Pulumi", "Ansible", "Helm"),
        ("{H} deploys with {v}.", "{H} manages infrastructure in {v}.",
         "Deployments of {h} go through {v}."),
        ("{H} moved from {old} to {v}.", "{H} now deploys with {v}."),
        (("Every change needs one approval.", ("{H} deploys with {v} and every change needs "
          "one approval.")),),
        ("{H} freezes releases in December.", "{H} is on call in weekly shifts.",
         "{H} writes a postmortem for every outage."),
    ),
    Family(
        "cycling", _VAL_PEOPLE, ("road bike", "gravel bike"),
        ("{H} rides a {v}.",),
        (),
        (),
        (),
        (("{H} cycled to the lake and back yesterday.",
          "On {date} {h} cycled to the lake and back."),
         ("{H} fixed a puncture on the way to work this morning.",
          "On {date} {h} fixed a puncture on the way to work."),
         ("{H} joined a group ride last weekend.", "On {date} {h} joined a group ride.")),
    ),
)

VAL_IDS: tuple[str, ...] = (
    "Shipment {n} left the warehouse on {d} May.",
    "Room {n} is booked for {name} on Friday.",
    "Case {n} was closed by {name}.",
    "Build {n} failed on {k} integration tests.",
)
VAL_NAMES = ("Ines", "Tariq", "Bea", "Yusuf", "Lena", "Arjun")

#: Hand-written groups: (type, [(text, created day, facts of each sentence)]) per part.
#: A fact is a short tag; the generator prefixes it with the group id.
Hand = tuple[str, tuple[tuple[str, str, tuple[tuple[str, ...], ...]], ...]]

#: Facts of a one-sentence row, for the hand-written parts: the fact (``F``), an update's
#: ``OLD`` / ``NEW`` value, a contradiction's or distinct group's ``A`` / ``B`` / ``C``, and a
#: fact with a detail (``FD``).
F = (("f",),)
OLD = (("old",),)
NEW = (("new",),)
A = (("a",),)
B = (("b",),)
C = (("c",),)
FD = (("f", "d"),)

DEV_HAND: tuple[Hand, ...] = (
    ("update", (("The user's timezone is Europe/Paris.", "01-10", (("old",),)),
                ("The user's timezone is Europe/Berlin.", "05-14", (("new",),)))),
    ("duplicate", (("User is allergic to peanuts.", "01-12", (("f",),)),
                   ("The user has a peanut allergy.", "03-02", (("f",),)))),
    ("duplicate", (("User has a dog named Biscuit.", "01-20", (("f",),)),
                   ("The user's dog is called Biscuit.", "04-08", (("f",),)))),
    ("update", (("The user works at Acme as a data engineer.", "01-15", (("old",),)),
                ("The user now works at Globex.", "06-03", (("new",),)))),
    ("update", (("The team standup is on Mondays at 9:15.", "02-05", (("old",),)),
                ("The standup moved to Tuesdays at 9:30.", "05-06", (("new",),)))),
    ("distinct_related", (("Invoice 1043 was paid on 3 March.", "03-03", (("a",),)),
                          ("Invoice 1044 was paid on 5 March.", "03-05", (("b",),)),
                          ("Invoice 1045 was paid on 9 March.", "03-09", (("c",),)))),
    ("update", (("Uses Unity and C# for the game prototype.", "02-11", (("old",),)),
                ("Switched from Unity/C# to Godot for the game prototype.", "06-20",
                 (("new",),)))),
    ("distinct_related", (("The user's car was rear-ended at a junction last week.", "03-18",
                           (("a",),)),
                          ("The user's car was hit in a supermarket car park last week.",
                           "08-26", (("b",),)))),
)

VAL_HAND: tuple[Hand, ...] = (
    ("update", (("Deliveries for the client go to the Harbour Street office.", "02-02",
                 (("old",),)),
                ("Deliveries for the client now go to the Mill Lane office.", "07-19",
                 (("new",),)))),
    ("duplicate", (("Sofia cannot eat gluten.", "01-08", (("f",),)),
                   ("Sofia has coeliac disease, so no gluten.", "04-21", (("f",),)))),
    ("refinement", (("Kenji's cat is called Tofu.", "02-14", (("name",),)),
                    ("Kenji's cat Tofu is a grey Maine Coon.", "05-30",
                     (("name", "breed"),)))),
    ("contradiction", (("The team offsite is in Valencia.", "03-01", (("a",),)),
                       ("The team offsite is in Bologna.", "03-01", (("b",),)))),
    ("distinct_related", (("Release 4.2 added dark mode.", "04-02", (("a",),)),
                          ("Release 4.3 added offline sync.", "06-11", (("b",),)))),
    ("temporal", (("On 10 March Amara ran her first trail race.", "03-11", (("a",),)),
                  ("On 19 August Amara ran a mountain trail race.", "08-20", (("b",),)))),
    ("distinct_related", (("Grace's bike was stolen from the station yesterday.", "05-04",
                           (("a",),)),
                          ("Grace's scooter was stolen from outside the gym yesterday.",
                           "09-17", (("b",),)))),
)
